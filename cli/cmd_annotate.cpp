// gammalab note SWEEP [TEXT] | tag SWEEP TAG... | search WORDS...: notes and tags on sweeps and runs
// (core/annotation.h), and finding them again across sweeps.
#include <iostream>

#include "absl/strings/str_join.h"
#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/table.h"
#include "cli/terminal.h"
#include "cli/terminal_text.h"
#include "proto/proto_json.h"

namespace gammalab::cli {
namespace {

struct AnnotateArgs {
  std::string sweep;
  std::string job;
  std::optional<std::string> note;
  std::vector<std::string> add;
  std::vector<std::string> remove;
};

// What a sweep or run now has, as `note` and `tag` answer: its tags on a line, then its note.
std::string annotation_text(const v1::Annotation& a) {
  std::string out = (a.job_id().empty() ? "sweep " + a.sweep_id() : "job " + a.job_id()) + ": ";
  out += a.tags().empty() ? "no tags" : "tags " + absl::StrJoin(a.tags(), " ");
  out += "\n";
  if (!a.note().empty()) out += a.note() + (a.note().ends_with('\n') ? "" : "\n");
  return terminal_text(out);
}

v1::Annotation annotate(const AnnotateArgs& args, const CliContext& context, const std::string& what) {
  v1::AnnotateRequest request;
  request.set_sweep_id(args.sweep);
  request.set_job_id(args.job);
  if (args.note) request.set_note(*args.note);
  for (const auto& t : args.add) request.add_add_tags(t);
  for (const auto& t : args.remove) request.add_remove_tags(t);
  v1::Annotation answer;
  check(connect_coordinator(context.server)->Annotate(rpc_context().get(), request, &answer), what, context.server);
  return answer;
}

// The sweep's (or with --job the run's) annotation as stored: the sweep's list, the one asked for.
v1::Annotation stored(const AnnotateArgs& args, const CliContext& context, const std::string& what) {
  v1::ListAnnotationsRequest request;
  request.set_sweep_id(args.sweep);
  v1::ListAnnotationsResponse response;
  check(connect_coordinator(context.server)->ListAnnotations(rpc_context().get(), request, &response), what,
        context.server);
  for (const v1::Annotation& a : response.annotations()) {
    if (a.job_id() == args.job) return a;
  }
  v1::Annotation none;  // nothing written yet
  none.set_job_id(args.job);
  none.set_sweep_id(args.sweep);
  return none;
}

void print(const v1::Annotation& a, const CliContext& context) {
  std::cout << (context.json ? proto_to_json(a) + "\n" : annotation_text(a));
}

}  // namespace

void add_note_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<AnnotateArgs>();
  auto* cmd = app.add_subcommand("note", "write (or read) the note of a sweep or of one of its runs");
  cmd->footer(examples({
                       "gammalab note 3 \"baseline diverged at 48k: LR too high\"",
                       "gammalab note 3 --job 41 \"rerun after the data fix\"",
                       "gammalab note 3                      # read it, with the tags",
                       "gammalab note 3 \"\"                   # clear it"}));
  cmd->add_option("sweep", args->sweep, "sweep id or name")->required();
  auto text = std::make_shared<std::string>();
  CLI::Option* given = cmd->add_option("text", *text, "the note (replaces the one there; \"\" clears it); none: print it");
  cmd->add_option("--job", args->job, "a run of the sweep instead of the sweep (id or SWEEP/JOB-NAME)");
  cmd->callback([args, text, given, &context] {
    if (given->count() > 0) args->note = *text;
    print(args->note ? annotate(*args, context, "note " + args->sweep) : stored(*args, context, "note " + args->sweep),
          context);
  });
}

void add_tag_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<AnnotateArgs>();
  auto* cmd = app.add_subcommand("tag", "add tags to a sweep or one of its runs, or take them off");
  cmd->footer(examples({
                       "gammalab tag 3 ablation paper-fig3",
                       "gammalab tag 3 --job 41 diverged",
                       "gammalab tag 3 --remove paper-fig3",
                       "gammalab search tag:ablation         # find them again"}));
  cmd->add_option("sweep", args->sweep, "sweep id or name")->required();
  cmd->add_option("tags", args->add, "tags to add: letters, digits and . _ - : + / =");
  cmd->add_option("--remove", args->remove, "tags to take off")->take_all();
  cmd->add_option("--job", args->job, "a run of the sweep instead of the sweep (id or SWEEP/JOB-NAME)");
  cmd->callback([args, &context] {
    print(args->add.empty() && args->remove.empty() ? stored(*args, context, "tag " + args->sweep)
                                                    : annotate(*args, context, "tag " + args->sweep),
          context);
  });
}

void add_search_command(CLI::App& app, CliContext& context) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("search", "find sweeps and runs by their names, notes and tags");
  cmd->footer(examples({
                       "gammalab search diverged             # in a name, a note or a tag",
                       "gammalab search tag:ablation qknorm  # tagged ablation, and qknorm anywhere"}));
  cmd->add_option("words", *words, "every word must be found (case-insensitive); tag:NAME asks for a tag")
      ->required();
  cmd->callback([words, &context] {
    v1::SearchRequest request;
    request.set_query(absl::StrJoin(*words, " "));
    v1::SearchResponse response;
    check(connect_coordinator(context.server)->Search(rpc_context().get(), request, &response), "search",
          context.server);
    if (context.json) {
      std::cout << proto_to_json(response) << "\n";
      return;
    }
    if (response.hits().empty()) {
      std::cout << "nothing found (sweeps by name, file, note and tags; runs that have a note or tags)\n";
      return;
    }
    TextTable table({{"SWEEP"}, {"JOB", TextTable::Align::kRight, 2}, {"NAME", TextTable::Align::kLeft, 0, true},
                     {"TAGS", TextTable::Align::kLeft, 1}, {"NOTE", TextTable::Align::kLeft, 3}});
    for (const v1::SearchHit& hit : response.hits()) {
      const v1::Annotation& a = hit.annotation();
      const std::string note = a.note().substr(0, a.note().find('\n'));
      table.add_row({a.sweep_id(), a.job_id(), a.job_id().empty() ? hit.sweep_name() : hit.job_name(),
                     absl::StrJoin(a.tags(), " "), note.size() > 60 ? note.substr(0, 57) + "..." : note});
    }
    std::cout << table.render_fitted(output_columns());
    if (response.truncated()) std::cout << "(the first " << response.hits_size() << " hits; more matched)\n";
  });
}

}  // namespace gammalab::cli
