// The pieces of `gammalab report`'s page: the module bundle (cli/module_bundle.h) on modules written here and
// on web/'s own, the escaping of what comes from the database, and the template's placeholders.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/module_bundle.h"
#include "cli/report_page.h"
#include "core/file_util.h"

namespace gammalab::cli {
namespace {

class Modules : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gammalab-bundle-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string refusal(const std::string& entry) {
    try {
      bundle_modules(dir_, entry);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::filesystem::path dir_;
};

TEST_F(Modules, EachOnceAfterWhatItImportsWithImportsAndExportKeywordsRemoved) {
  write("a.js", "export let counter = 0;\nexport function bump() { counter += 1; }\n");
  write("b.js", "import { counter, bump } from './a.js';\nexport const twice = () => { bump(); bump(); return counter; };\n");
  write("main.js", "import {\n  bump,\n} from './a.js';\nimport { twice } from \"./b.js\";\r\nbump();\n");
  const ModuleBundle bundle = bundle_modules(dir_, "main.js");
  EXPECT_EQ(bundle.modules, (std::vector<std::string>{"a.js", "b.js", "main.js"}));
  EXPECT_EQ(bundle.code,
            "// ---- a.js\nlet counter = 0;\nfunction bump() { counter += 1; }\n\n"
            "// ---- b.js\n\nconst twice = () => { bump(); bump(); return counter; };\n\n"
            "// ---- main.js\n\n\n\n\nbump();\n\n");
}

TEST_F(Modules, RefusesWhatOneScopeCannotHoldNamingFileAndLine) {
  write("rename.js", "// x\nimport { a as b } from './a.js';\n");
  EXPECT_NE(refusal("rename.js").find("rename.js:2: import of 'a as b': renaming (`as`) cannot be inlined"), std::string::npos)
      << refusal("rename.js");
  write("default.js", "import a from './a.js';\n");
  EXPECT_NE(refusal("default.js").find("default.js:1: only named imports"), std::string::npos);
  write("up.js", "import { a } from '../a.js';\n");
  EXPECT_NE(refusal("up.js").find("up.js:1: import of '../a.js': only './NAME.js' of the same folder"), std::string::npos)
      << refusal("up.js");
  write("vendor.js", "import { a } from '/vendor/uplot/uPlot.esm.js';\n");
  EXPECT_NE(refusal("vendor.js").find("only './NAME.js'"), std::string::npos);
  write("missing.js", "import { a } from './nowhere.js';\n");
  EXPECT_NE(refusal("missing.js").find("nowhere.js: no such module"), std::string::npos) << refusal("missing.js");
  write("default-export.js", "const a = 1;\nexport default a;\n");
  EXPECT_NE(refusal("default-export.js").find("default-export.js:2: only `export` before a function"), std::string::npos);
  write("list-export.js", "const a = 1;\nexport { a };\n");
  EXPECT_NE(refusal("list-export.js").find("list-export.js:2:"), std::string::npos);
  write("ends.js", "const a = 1;\nconst s = '</SCRIPT>';\n");
  EXPECT_NE(refusal("ends.js").find("ends.js:2: contains '</script'"), std::string::npos) << refusal("ends.js");
  write("x.js", "import { y } from './y.js';\nexport const x = 1;\n");
  write("y.js", "import { x } from './x.js';\nexport const y = 1;\n");
  EXPECT_NE(refusal("x.js").find("import cycle: x.js -> y.js -> x.js"), std::string::npos) << refusal("x.js");
}

TEST_F(Modules, ATopLevelNameTwoModulesDeclareIsRefusedNamingBoth) {
  write("a.js", "// a\nexport function shown(x) { return x; }\nconst { width, height: tall } = sizes();\n");
  write("b.js", "import { shown } from './a.js';\n\nfunction shown(x) { return x; }\n");
  EXPECT_NE(refusal("b.js").find("b.js:3: 'shown' is declared at the top level of " + (dir_ / "a.js").string() +
                                 ":2 too: the inlined modules share one scope (rename one)"),
            std::string::npos)
      << refusal("b.js");
  write("c.js", "import { shown } from './a.js';\nlet tall = 2;\n");
  EXPECT_NE(refusal("c.js").find("c.js:2: 'tall' is declared at the top level of " + (dir_ / "a.js").string() + ":3"),
            std::string::npos)
      << refusal("c.js");
  // A name used, or declared inside a function (indented), is no declaration of the module's.
  write("d.js", "import { shown } from './a.js';\nfunction f() {\n  const shown = 1;\n  return shown;\n}\n");
  EXPECT_EQ(bundle_modules(dir_, "d.js").modules, (std::vector<std::string>{"a.js", "d.js"}));
}

TEST(ReportPage, WebsOwnModulesBundleInDependencyOrder) {
  const ModuleBundle bundle = bundle_modules(std::filesystem::path(GAMMALAB_SOURCE_DIR) / "web", "report.js");
  EXPECT_EQ(bundle.modules,
            (std::vector<std::string>{"colours.js", "format.js", "config_columns.js", "seeds.js", "series.js", "laws.js",
                                      "tune_report.js", "axes.js", "chart.js", "columns.js", "loss_chart.js",
                                      "scaling_chart.js", "surface_chart.js", "tune_chart.js", "family.js", "dom.js",
                                      "when.js", "tune_seeds.js", "scroll_edges.js", "theme.js", "comparisons.js",
                                      "surface.js", "headline_reading.js", "study.js", "report.js"}));
  EXPECT_EQ(bundle.code.find("\nimport "), std::string::npos);
  EXPECT_EQ(bundle.code.find("\nexport "), std::string::npos);
}

TEST(ReportPage, DatabaseTextCannotEndItsElement) {
  EXPECT_EQ(html_escape("<b a=\"1\" b='2'>&</b>"), "&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;&lt;/b&gt;");
  const nlohmann::json data = {{"name", "</script><!--&"}};
  const std::string text = script_json(data);
  EXPECT_EQ(text, R"({"name":"\u003c/script\u003e\u003c!--\u0026"})");
  EXPECT_EQ(nlohmann::json::parse(text), data);  // reads back as the same string
  // Invalid UTF-8 from the database is replaced, not a failed report.
  EXPECT_EQ(script_json(nlohmann::json{{"n", std::string("a\xff")}}), "{\"n\":\"a\xef\xbf\xbd\"}");
}

TEST(ReportPage, FillsEachPlaceholderOnceAndNeverInsideAValue) {
  ReportAssets assets{"<meta content=\"{{csp}}\"><title>{{title}}</title>{{style}}{{data}}{{scripts}}", "s", "u", "m"};
  const std::string page = report_page(assets, {{"name", "{{data}}"}}, "{{scripts}} & co");
  EXPECT_NE(page.find("<title>{{scripts}} &amp; co</title>"), std::string::npos) << page;
  EXPECT_NE(page.find("<style>s</style>"), std::string::npos);
  EXPECT_NE(page.find("\"name\":\"{{data}}\""), std::string::npos);
  EXPECT_NE(page.find("<script>u</script>\n<script type=\"module\">m</script>"), std::string::npos);
  EXPECT_NE(page.find("script-src " + csp_hash("u") + " " + csp_hash("m") + "; style-src " + csp_hash("s")), std::string::npos);
  // sha256("u") in base64 (as `printf u | openssl dgst -sha256 -binary | base64` prints it).
  EXPECT_EQ(csp_hash("u"), "'sha256-C/6TXnDDIcfKOvx1zg0MovmLVCLgCLsxwAxtfx8cCtY='");

  assets.page = "{{csp}}{{title}}{{style}}{{data}}";
  EXPECT_THROW(report_page(assets, {}, "t"), std::invalid_argument);  // {{scripts}} missing
  assets.page = "{{csp}}{{title}}{{style}}{{data}}{{scripts}}{{scripts}}";
  EXPECT_THROW(report_page(assets, {}, "t"), std::invalid_argument);
  assets.page = "{{csp}}{{title}}{{style}}{{data}}{{scripts}}{{other}}";
  EXPECT_THROW(report_page(assets, {}, "t"), std::invalid_argument);
}

}  // namespace
}  // namespace gammalab::cli
