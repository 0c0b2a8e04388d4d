// Out-of-memory failures by their exception (worker/trainer/out_of_memory.h).
#include "worker/trainer/out_of_memory.h"

#include <c10/util/Exception.h>

#include <new>
#include <string_view>

namespace gammalab::trainer {

bool is_out_of_memory(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return true;
  if (dynamic_cast<const c10::OutOfMemoryError*>(&error) != nullptr) return true;
  // LibTorch's CPU allocator (c10's alloc_cpu) reports a refused allocation as a plain c10::Error in
  // LibTorch 1.13; its message is the one mark it has.
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) {
    return std::string_view(c10_error->msg()).find("can't allocate memory") != std::string_view::npos;
  }
  return false;
}

std::string error_text_without_backtrace(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) return c10_error->what_without_backtrace();
  return error.what();
}

}  // namespace gammalab::trainer
