#include "proto/proto_json.h"

#include <google/protobuf/util/json_util.h>

namespace gammalab {

std::string proto_to_json(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;  // a zero or empty field is still a field of the object
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

}  // namespace gammalab
