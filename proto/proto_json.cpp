#include "proto/proto_json.h"

#include <google/protobuf/util/json_util.h>

#include <stdexcept>

namespace gammalab {

std::string proto_to_json(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;  // a zero or empty field is still a field of the object
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

void proto_from_json(std::string_view json, google::protobuf::Message& out) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;  // a misspelt field is said, not dropped
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json), &out, options);
  if (!status.ok()) throw std::invalid_argument("body: not a " + out.GetTypeName() + ": " + std::string(status.message()));
}

}  // namespace gammalab
