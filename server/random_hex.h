#pragma once
// Random identifiers from the kernel's generator (libsodium's randombytes): session ids, job uids, the
// database's own uid. Lowercase hex, two characters a byte.
#include <cstddef>
#include <string>

namespace gammalab {

std::string random_hex(std::size_t bytes);

}  // namespace gammalab
