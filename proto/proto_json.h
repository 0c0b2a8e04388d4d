#pragma once
// Protobuf messages as JSON with the .proto field names: what the CLI's --json and the HTTP API print.
#include <string>
#include <vector>

#include <google/protobuf/message.h>

namespace gammalab {

std::string proto_to_json(const google::protobuf::Message& message);

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
