#include "server/random_hex.h"

#include <sodium.h>

#include <vector>

namespace gammalab {

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  randombytes_buf(raw.data(), raw.size());
  std::string out(bytes * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), raw.data(), raw.size());
  out.pop_back();
  return out;
}

}  // namespace gammalab
