#pragma once
// Protobuf messages as JSON with the .proto field names: what the CLI's --json and the HTTP API print.
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

namespace gammalab {

std::string proto_to_json(const google::protobuf::Message& message);

// A request body read as the message it stands for (the HTTP API's bodies are the gRPC requests as JSON, with
// the .proto field names or their lowerCamel forms); throws std::invalid_argument with the parser's reason for
// JSON that is not that message (a field it does not have, a value of the wrong type).
void proto_from_json(std::string_view json, google::protobuf::Message& out);

template <typename T>
std::string proto_json_array(const std::vector<T>& items, const char* separator = ",") {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += proto_to_json(items[i]);
  }
  return out + "]";
}

}  // namespace gammalab
