#include "core/yaml_depth.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace gammalab {

namespace {

class DepthCheck : public YAML::EventHandler {
 public:
  explicit DepthCheck(int max_depth) : max_depth_(max_depth) {}
  struct TooDeep {
    YAML::Mark mark;
  };

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void enter(const YAML::Mark& mark) {
    if (++depth_ > max_depth_) throw TooDeep{mark};
  }
  int max_depth_;
  int depth_ = 0;
};

}  // namespace

std::optional<YAML::Mark> yaml_too_deep(const std::string& text, int max_depth) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DepthCheck check(max_depth);
  try {
    parser.HandleNextDocument(check);
  } catch (const DepthCheck::TooDeep& e) {
    return e.mark;
  }
  return std::nullopt;
}

}  // namespace gammalab
