// A failed attempt's error (worker/attempt_error.h): the reason at the top of a long backtrace survives, metric
// lines and the worker's header do not crowd it out, and the text is valid UTF-8 within the stored size.
#include <gtest/gtest.h>

#include "core/limits.h"
#include "core/utf8_text.h"
#include "worker/attempt_error.h"

namespace gammalab {
namespace {

TEST(AttemptError, TheReasonAboveALongBacktraceIsKeptWithTheEnd) {
  std::string log = "== s/job0: attempt 2 on worker w-1 (host, slot 0)\n";
  for (int step = 0; step < 50; ++step) {
    log += R"({"step":)" + std::to_string(step) + R"(,"tokens":1024,"metrics":{"train/loss":2.5}})" "\n";
  }
  log += "terminate called after throwing an instance of 'c10::Error'\n";
  log += "  what():  [enforce fail at alloc_cpu.cpp:75] DefaultCPUAllocator: not enough memory: you tried to "
         "allocate 824633720832 bytes.\n";
  for (int frame = 0; frame < 400; ++frame) {
    log += "frame #" + std::to_string(frame) + ": c10::something<at::Tensor>() + 0x" + std::to_string(frame) + "\n";
  }
  log += "Aborted (core dumped)\n";
  const std::string error = attempt_error_excerpt(log);
  EXPECT_NE(error.find("not enough memory: you tried to allocate 824633720832 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("Aborted (core dumped)"), std::string::npos) << error;
  EXPECT_NE(error.find(" lines left out ...]"), std::string::npos) << error;
  EXPECT_EQ(error.find("\"step\""), std::string::npos) << "metric lines crowd out the reason";
  EXPECT_EQ(error.find("== s/job0"), std::string::npos);
  EXPECT_LE(error.size(), limits::kMaxJobErrorBytes - 200) << "room for the worker's sentence";
  EXPECT_FALSE(utf8_first_invalid(error).has_value());
}

TEST(AttemptError, AShortLogIsKeptWhole) {
  EXPECT_EQ(attempt_error_excerpt("== h\nerror: data file d/train.bin: no such file\n\n"),
            "error: data file d/train.bin: no such file");
  EXPECT_EQ(attempt_error_excerpt(""), "");
}

TEST(AttemptError, OneHugeLineIsCutAtACharacterAndStaysValid) {
  std::string line = "reason: ";
  for (int i = 0; i < 5000; ++i) line += "ü";
  const std::string error = attempt_error_excerpt(line + "\n\xff\xfe broken bytes\n");
  EXPECT_EQ(error.rfind("reason: ü", 0), 0u);
  EXPECT_FALSE(utf8_first_invalid(error).has_value());
  EXPECT_LE(error.size(), kAttemptErrorHeadBytes + kAttemptErrorTailBytes + 64);
}

}  // namespace
}  // namespace gammalab
