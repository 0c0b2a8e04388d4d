#pragma once
// Whether a failed run ran out of device memory: its model and micro-batch do not fit, so another attempt on
// the same kind of worker would fail alike (core/exit_codes.h, kOutOfMemory).
#include <exception>
#include <string>

namespace gammalab::trainer {

// std::bad_alloc, LibTorch's c10::OutOfMemoryError (a CUDA allocation), or the c10::Error LibTorch's CPU
// allocator throws for an allocation the system refuses ("can't allocate memory").
bool is_out_of_memory(const std::exception& error);

// The failure in one line for the log: a c10::Error's message without the C++ backtrace LibTorch appends
// (dozens of frames that would push the refused allocation's size out of the attempt's error), else what().
std::string error_text_without_backtrace(const std::exception& error);

}  // namespace gammalab::trainer
