#include "core/scaling/fit_report.h"

#include <cmath>
#include <limits>

#include "core/scaling/verdict.h"

namespace gammalab {

namespace {

nlohmann::json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

// The inverse of number(): a JSON number, or one of the strings it writes for non-finite values.
double number_from(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string text = j.get<std::string>();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

nlohmann::json estimate_json(const Estimate& e) {
  return {{"value", number(e.value)},
          {"lo", number(e.lo)},
          {"hi", number(e.hi)},
          {"bounded", e.bounded()},
          {"at_bound", e.at_bound},
          {"reaches_bound", e.reaches_bound}};
}

Estimate estimate_from(const std::string& name, const nlohmann::json& j) {
  Estimate e{name, number_from(j.at("value")), number_from(j.at("lo")), number_from(j.at("hi")),
             j.value("at_bound", false)};
  e.reaches_bound = j.value("reaches_bound", false);
  return e;
}

nlohmann::json estimates_json(const std::vector<Estimate>& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& e : list) out[e.name] = estimate_json(e);
  return out;
}

std::vector<Estimate> estimates_from(const nlohmann::json& j) {
  std::vector<Estimate> out;
  for (const auto& [name, e] : j.items()) out.push_back(estimate_from(name, e));
  return out;
}

nlohmann::json size_json(const CellSummary& s) {
  return {{"params", s.params}, {"tokens", s.tokens}, {"compute", s.compute}, {"runs", s.runs},
          {"mean", number(s.mean)}, {"standard_error", number(s.standard_error)}};
}

CellSummary size_from(const nlohmann::json& j) {
  return {j.at("params").get<double>(), j.at("tokens").get<double>(), j.at("compute").get<double>(),
          j.at("runs").get<int>(),      number_from(j.at("mean")),     number_from(j.at("standard_error"))};
}

nlohmann::json size_comparison_json(const SizeComparison& s) {
  return {{"params", s.params},
          {"tokens", s.tokens},
          {"compute", s.compute},
          {"variant_compute", s.variant_compute},
          {"baseline_mean", number(s.baseline_mean)},
          {"baseline_runs", s.baseline_runs},
          {"variant_runs", s.variant_runs},
          {"pairs", s.pairs},
          {"paired_mean", number(s.paired_mean)},
          {"paired_standard_error", number(s.paired_standard_error)},
          {"unpaired_standard_error", number(s.unpaired_standard_error)},
          {"complete", s.complete},
          {"gap", estimate_json(s.gap)},
          {"local_multiplier", estimate_json(s.local)},
          {"inside", s.inside}};
}

SizeComparison size_comparison_from(const nlohmann::json& j) {
  SizeComparison s;
  s.params = j.at("params").get<double>();
  s.tokens = j.at("tokens").get<double>();
  s.compute = j.at("compute").get<double>();
  s.variant_compute = j.at("variant_compute").get<double>();
  s.baseline_mean = number_from(j.at("baseline_mean"));
  s.baseline_runs = j.at("baseline_runs").get<int>();
  s.variant_runs = j.at("variant_runs").get<int>();
  s.pairs = j.at("pairs").get<int>();
  s.paired_mean = number_from(j.at("paired_mean"));
  s.paired_standard_error = number_from(j.at("paired_standard_error"));
  s.unpaired_standard_error = number_from(j.at("unpaired_standard_error"));
  s.complete = j.at("complete").get<bool>();
  s.gap = estimate_from("gap", j.at("gap"));
  s.local = estimate_from("m_local", j.at("local_multiplier"));
  s.inside = j.at("inside").get<bool>();
  return s;
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& s : c.sizes) sizes.push_back(size_comparison_json(s));
  nlohmann::json j = {{"variant", c.variant},     {"baseline", c.baseline},
                      {"paired", c.paired},       {"ladder", c.ladder},
                      {"sizes", sizes},           {"local_multiplier", estimate_json(c.local)},
                      {"local_multiplier_unweighted", estimate_json(c.local_unweighted)},
                      {"trend", estimate_json(c.trend)},
                      {"trend_resolved", c.trend_resolved()},
                      {"at_largest", estimate_json(c.at_largest)},
                      {"sizes_inside", c.sizes_inside},
                      {"sizes_pooled", c.sizes_pooled},
                      {"fewest_seeds", c.fewest_seeds},
                      {"degrees_of_freedom", number(c.degrees_of_freedom)},
                      {"largest_degrees_of_freedom", c.largest_degrees_of_freedom},
                      {"chord", c.chord},
                      {"relative_effect", number(c.relative_effect)},
                      {"holdout_error", number(c.holdout_error)}};
  nlohmann::json curves = nlohmann::json::array();
  for (const CurveTrace& t : c.baseline_curves) {
    nlohmann::json compute = nlohmann::json::array(), loss = nlohmann::json::array();
    for (double x : t.compute) compute.push_back(number(x));
    for (double l : t.loss) loss.push_back(number(l));
    curves.push_back({{"compute", std::move(compute)}, {"loss", std::move(loss)}});
  }
  j["baseline_curves"] = std::move(curves);
  nlohmann::json token_sizes = nlohmann::json::array();
  for (const SizeTokenMultiplier& t : c.token_sizes) {
    token_sizes.push_back({{"params", t.params},
                           {"budgets", t.budgets},
                           {"budgets_inside", t.budgets_inside},
                           {"degrees_of_freedom", t.degrees_of_freedom},
                           {"multiplier", estimate_json(t.value)}});
  }
  j["token_multiplier"] = {{"sizes", std::move(token_sizes)},
                           {"pooled", estimate_json(c.tokens)},
                           {"degrees_of_freedom", number(c.tokens_degrees_of_freedom)}};
  j["jackknife"] = c.jackknife ? nlohmann::json{{"sizes", c.jackknife->sizes},
                                                {"lo", number(c.jackknife->lo)},
                                                {"hi", number(c.jackknife->hi)},
                                                {"log_standard_error", number(c.jackknife->log_standard_error)}}
                               : nlohmann::json(nullptr);
  return j;
}

Comparison comparison_from(const nlohmann::json& j) {
  Comparison c;
  c.variant = j.at("variant").get<std::string>();
  c.baseline = j.at("baseline").get<std::string>();
  c.paired = j.at("paired").get<bool>();
  c.ladder = j.at("ladder").get<bool>();
  for (const auto& s : j.at("sizes")) c.sizes.push_back(size_comparison_from(s));
  c.local = estimate_from("m_local", j.at("local_multiplier"));
  c.sizes_inside = j.at("sizes_inside").get<int>();
  // Reports stored before the pooled value had its support, trend and degrees of freedom lack these: NaN and 0.
  const nlohmann::json none = {{"value", "nan"}, {"lo", "nan"}, {"hi", "nan"}};
  c.local_unweighted = estimate_from("m_local unweighted", j.value("local_multiplier_unweighted", none));
  c.trend = estimate_from("trend of ln m_local on ln N", j.value("trend", none));
  c.at_largest = estimate_from("m_local at the largest size", j.value("at_largest", none));
  c.sizes_pooled = j.value("sizes_pooled", c.sizes_inside);
  c.fewest_seeds = j.value("fewest_seeds", 0);
  c.degrees_of_freedom = j.value("degrees_of_freedom", 0.0);
  c.largest_degrees_of_freedom = j.value("largest_degrees_of_freedom", 0);
  c.chord = j.value("chord", false);
  c.relative_effect = number_from(j.at("relative_effect"));
  c.holdout_error = number_from(j.at("holdout_error"));
  // Reports stored before the curves were kept have none.
  for (const auto& t : j.value("baseline_curves", nlohmann::json::array())) {
    CurveTrace trace;
    for (const auto& x : t.at("compute")) trace.compute.push_back(number_from(x));
    for (const auto& l : t.at("loss")) trace.loss.push_back(number_from(l));
    c.baseline_curves.push_back(std::move(trace));
  }
  // Reports stored before the token multiplier was read have none.
  const nlohmann::json tokens = j.value("token_multiplier", nlohmann::json{{"pooled", none}});
  for (const auto& t : tokens.value("sizes", nlohmann::json::array())) {
    c.token_sizes.push_back({t.at("params").get<double>(), t.at("budgets").get<int>(), t.at("budgets_inside").get<int>(),
                             t.at("degrees_of_freedom").get<int>(), estimate_from("m_D", t.at("multiplier"))});
  }
  c.tokens = estimate_from("m_D over sizes", tokens.at("pooled"));
  c.tokens_degrees_of_freedom = number_from(tokens.value("degrees_of_freedom", nlohmann::json(0.0)));
  if (const auto& k = j.at("jackknife"); !k.is_null()) {
    c.jackknife = Jackknife{k.at("sizes").get<int>(), number_from(k.at("lo")), number_from(k.at("hi")),
                            number_from(k.at("log_standard_error"))};
  }
  return c;
}

}  // namespace

nlohmann::json to_json(const FitReport& r) {
  nlohmann::json out;
  out["law"] = std::string(law_name(r.law));
  out["confidence"] = r.confidence;
  out["bootstrap"] = {
      {"requested", r.bootstrap_requested}, {"used", r.bootstrap_used}, {"seed", r.seed}, {"unit", r.bootstrap_unit}};
  out["baseline"] = r.baseline;
  out["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& s : g.sizes) sizes.push_back(size_json(s));
    nlohmann::json j = {{"group", g.group},
                        {"runs", g.runs},
                        {"model_sizes", g.model_sizes},
                        {"sizes", sizes},
                        {"points_fitted", g.fit.points},
                        {"objective", number(g.fit.objective)},
                        {"huber_delta", number(g.fit.huber_delta)},
                        {"huber_delta_source", g.fit.delta_source},
                        {"converged", g.fit.converged},
                        {"termination", g.fit.termination},
                        {"starts", g.fit.starts},
                        {"starts_converged", g.fit.starts_converged},
                        {"parameters", estimates_json(g.parameters)},
                        {"derived", estimates_json(g.derived)}};
    if (!g.band.empty()) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& b : g.band) points.push_back({number(b.x), number(b.lo), number(b.hi)});
      j["band"] = {{"axis", band_axis(r.law)}, {"points", points}};
    }
    if (!g.predictions.empty()) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& p : g.predictions) {
        rows.push_back({{"params", p.at.params}, {"tokens", p.at.tokens}, {"compute", run_compute(p.at)},
                        {"loss", number(p.at.loss)}, {"label", p.at.label}, {"predicted", number(p.predicted)},
                        {"lo", number(p.lo)}, {"hi", number(p.hi)}, {"extrapolated", p.extrapolated}});
      }
      j["predictions"] = rows;
    }
    if (g.holdout) {
      nlohmann::json runs = nlohmann::json::array();
      for (const auto& h : g.holdout->runs) {
        runs.push_back({{"params", h.run.params},
                        {"tokens", h.run.tokens},
                        {"loss", h.run.loss},
                        {"label", h.run.label},
                        {"predicted", number(h.predicted)},
                        {"relative_error", number(h.relative_error)}});
      }
      nlohmann::json fitted = nlohmann::json::object();
      for (const auto& v : g.holdout->fit.parameters) fitted[v.name] = number(v.value);
      j["holdout"] = {{"held_out_params", g.holdout->held_out_params},
                      {"converged", g.holdout->fit.converged},
                      {"parameters", fitted},
                      {"mean_abs_relative_error", number(g.holdout->mean_abs_relative_error)},
                      {"max_abs_relative_error", number(g.holdout->max_abs_relative_error)},
                      {"runs", runs}};
    }
    out["groups"].push_back(std::move(j));
  }
  out["comparisons"] = nlohmann::json::array();
  for (const auto& c : r.comparisons) out["comparisons"].push_back(comparison_json(c));
  // The verdict's sentences, as `gammalab fit` prints them: the dashboard shows these, word for word. Made
  // again from the report's fields on every write, never read back.
  out["verdicts"] = nlohmann::json::array();
  for (const auto& v : comparison_verdicts(r)) {
    out["verdicts"].push_back({{"variant", v.variant},
                               {"reference", v.reference},
                               {"estimator", v.estimator},
                               {"settled", v.settled},
                               {"headline", v.headline},
                               {"details", v.details}});
  }
  out["multipliers"] = nlohmann::json::array();
  for (const auto& m : r.multipliers) {
    nlohmann::json budgets = nlohmann::json::array();
    for (const auto& b : m.at_budgets) {
      nlohmann::json e = estimate_json(b.multiplier);
      e["compute"] = b.compute;
      e["extrapolated"] = b.extrapolated;
      budgets.push_back(std::move(e));
    }
    nlohmann::json j = {{"variant", m.variant},
                        {"baseline", m.baseline},
                        {"compute_range", {number(m.compute_lo), number(m.compute_hi)}},
                        {"at_budgets", budgets}};
    j["constant"] = m.constant ? estimate_json(*m.constant) : nlohmann::json(nullptr);
    if (!m.shared_fit.empty()) j["shared_fit"] = estimates_json(m.shared_fit);
    if (m.profile) {
      j["profile"] = {{"lo", number(m.profile->lo)},         {"hi", number(m.profile->hi)},
                      {"open_lo", m.profile->open_lo},       {"open_hi", m.profile->open_hi},
                      {"tolerance", number(m.profile->tolerance)}};
    }
    out["multipliers"].push_back(std::move(j));
  }
  if (r.tune_seed) {
    nlohmann::json cells = nlohmann::json::array();
    for (const TuneSeedCell& c : r.tune_seed->cells) {
      cells.push_back({{"group", c.group}, {"params", c.params}, {"tokens", c.tokens}, {"main_runs", c.main_runs},
                       {"tune_runs", c.tune_runs}, {"main_mean", number(c.main_mean)},
                       {"tune_mean", number(c.tune_mean)}, {"sd", number(c.sd)}, {"df", number(c.df)},
                       {"t", number(c.t)}, {"critical", number(c.critical)}, {"disagrees", c.disagrees}});
    }
    out["tune_seed"] = {{"family_alpha", r.tune_seed->family_alpha}, {"cells", std::move(cells)}};
  }
  out["warnings"] = r.warnings;
  return out;
}

FitReport fit_report_from_json(const nlohmann::json& j) {
  FitReport r;
  const auto law = parse_law(j.at("law").get<std::string>());
  if (!law) throw nlohmann::json::other_error::create(501, "unknown law " + j.at("law").dump(), &j);
  r.law = *law;
  r.confidence = j.at("confidence").get<double>();
  const auto& bootstrap = j.at("bootstrap");
  r.bootstrap_requested = bootstrap.at("requested").get<int>();
  r.bootstrap_used = bootstrap.at("used").get<int>();
  r.seed = bootstrap.at("seed").get<std::uint64_t>();
  r.bootstrap_unit = bootstrap.value("unit", "");
  r.baseline = j.at("baseline").get<std::string>();
  for (const auto& g : j.at("groups")) {
    GroupFit group;
    group.group = g.at("group").get<std::string>();
    group.runs = g.at("runs").get<int>();
    group.model_sizes = g.at("model_sizes").get<int>();
    for (const auto& s : g.value("sizes", nlohmann::json::array())) group.sizes.push_back(size_from(s));
    group.fit.kind = r.law;
    group.fit.points = g.at("points_fitted").get<int>();
    group.fit.objective = number_from(g.at("objective"));
    group.fit.huber_delta = number_from(g.value("huber_delta", nlohmann::json(0.0)));
  group.fit.delta_source = g.value("huber_delta_source", std::string());
    group.fit.converged = g.at("converged").get<bool>();
    group.fit.termination = g.at("termination").get<std::string>();
    group.fit.starts = g.at("starts").get<int>();
    group.fit.starts_converged = g.at("starts_converged").get<int>();
    group.parameters = estimates_from(g.at("parameters"));
    group.derived = estimates_from(g.at("derived"));
    for (const auto& e : group.parameters) group.fit.parameters.push_back({e.name, e.value});
    for (const auto& e : group.derived) group.fit.derived.push_back({e.name, e.value});
    if (g.contains("band")) {
      for (const auto& b : g.at("band").at("points")) {
        group.band.push_back({number_from(b.at(0)), number_from(b.at(1)), number_from(b.at(2))});
      }
    }
    if (g.contains("predictions")) {
      for (const auto& p : g.at("predictions")) {
        RunPoint at;
        at.params = p.at("params").get<double>();
        at.tokens = p.at("tokens").get<double>();
        at.compute = p.at("compute").get<double>();
        at.loss = number_from(p.at("loss"));
        at.label = p.at("label").get<std::string>();
        at.group = group.group;
        group.predictions.push_back({at, number_from(p.at("predicted")), number_from(p.at("lo")),
                                     number_from(p.at("hi")), p.at("extrapolated").get<bool>()});
      }
    }
    if (g.contains("holdout")) {
      const auto& h = g.at("holdout");
      HoldoutCheck check;
      check.held_out_params = h.at("held_out_params").get<double>();
      check.fit.kind = r.law;
      check.fit.converged = h.at("converged").get<bool>();
      for (const auto& [name, v] : h.at("parameters").items()) check.fit.parameters.push_back({name, number_from(v)});
      check.mean_abs_relative_error = number_from(h.at("mean_abs_relative_error"));
      check.max_abs_relative_error = number_from(h.at("max_abs_relative_error"));
      for (const auto& run : h.at("runs")) {
        HoldoutRun held;
        held.run.params = run.at("params").get<double>();
        held.run.tokens = run.at("tokens").get<double>();
        held.run.loss = run.at("loss").get<double>();
        held.run.label = run.at("label").get<std::string>();
        held.run.group = group.group;
        held.predicted = number_from(run.at("predicted"));
        held.relative_error = number_from(run.at("relative_error"));
        check.runs.push_back(std::move(held));
      }
      group.holdout = std::move(check);
    }
    r.groups.push_back(std::move(group));
  }
  // A report stored before comparisons existed has none.
  for (const auto& c : j.value("comparisons", nlohmann::json::array())) r.comparisons.push_back(comparison_from(c));
  for (const auto& m : j.at("multipliers")) {
    Multiplier mult;
    mult.variant = m.at("variant").get<std::string>();
    mult.baseline = m.at("baseline").get<std::string>();
    if (m.contains("compute_range")) {
      mult.compute_lo = number_from(m.at("compute_range").at(0));
      mult.compute_hi = number_from(m.at("compute_range").at(1));
    }
    for (const auto& b : m.at("at_budgets")) {
      mult.at_budgets.push_back({b.at("compute").get<double>(), estimate_from("m(C)", b), b.value("extrapolated", false)});
    }
    if (!m.at("constant").is_null()) mult.constant = estimate_from("m", m.at("constant"));
    if (m.contains("shared_fit")) mult.shared_fit = estimates_from(m.at("shared_fit"));
    if (m.contains("profile")) {
      const auto& p = m.at("profile");
      mult.profile = ProfileRange{number_from(p.at("lo")), number_from(p.at("hi")), p.at("open_lo").get<bool>(),
                                  p.at("open_hi").get<bool>(), number_from(p.at("tolerance"))};
    }
    r.multipliers.push_back(std::move(mult));
  }
  if (j.contains("tune_seed")) {
    TuneSeedCheck check;
    check.family_alpha = j.at("tune_seed").at("family_alpha").get<double>();
    for (const auto& c : j.at("tune_seed").at("cells")) {
      check.cells.push_back({c.at("group").get<std::string>(), c.at("params").get<double>(),
                             c.at("tokens").get<double>(), c.at("main_runs").get<int>(), c.at("tune_runs").get<int>(),
                             number_from(c.at("main_mean")), number_from(c.at("tune_mean")), number_from(c.at("sd")),
                             number_from(c.at("df")), number_from(c.at("t")), number_from(c.at("critical")),
                             c.at("disagrees").get<bool>()});
    }
    r.tune_seed = std::move(check);
  }
  r.warnings = j.at("warnings").get<std::vector<std::string>>();
  return r;
}

}  // namespace gammalab
