#include "server/token_commands.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "server/private_files.h"
#include "server/tokens.h"

namespace gammalab {

namespace {

std::string utc(std::int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

void add_token_commands(CLI::App& app, TokenCommand& command) {
  CLI::App* token = app.add_subcommand("token", "manage access tokens in --db (also while the server runs)");
  token->require_subcommand(1);
  token->fallthrough();  // --db after the subcommand, as in `token list --db FILE`
  token->parse_complete_callback([&command] { command.requested = true; });
  CLI::App* create = token->add_subcommand("create", "make a token and print it (the only time it is shown)");
  create->add_option("--role", command.role,
                     "user (CLI, dashboard, HTTP API), worker (gammalab-worker) or metrics (a Prometheus scraping "
                     "GET /metrics)")
      ->required()
      ->check(CLI::IsMember({"user", "worker", "metrics"}));
  create->add_option("--name", command.name, "what the token is for (shown by `token list`)");
  create->add_option("--out", command.out,
                     "write the token to this new file, readable by its owner only (0600), instead of printing it");
  create->callback([&command] { command.action = "create"; });
  create->fallthrough();
  CLI::App* list = token->add_subcommand("list", "list tokens: id, name, role, created, revoked (never secrets)");
  list->add_flag("--json", command.json, "print JSON");
  list->callback([&command] { command.action = "list"; });
  list->fallthrough();
  CLI::App* revoke = token->add_subcommand("revoke", "revoke a token: calls with it are refused from now on");
  revoke->add_option("ID", command.id, "the token's id (from `token list`)")->required()->check(CLI::PositiveNumber);
  revoke->callback([&command] { command.action = "revoke"; });
  revoke->fallthrough();
}

int run_token_command(const TokenCommand& command, const std::string& db_path) {
  try {
    Tokens tokens(db_path);
    if (command.action == "create") {
      if (!command.out.empty()) {
        // Checked before the token exists: a refused file leaves no token behind.
        if (std::filesystem::symlink_status(command.out).type() != std::filesystem::file_type::not_found) {
          std::cerr << "token create: --out " << command.out << ": exists already (choose a new file)\n";
          return 1;
        }
        write_new_private_file(command.out, tokens.create(parse_role(command.role).value(), command.name) + "\n");
        return 0;
      }
      std::cout << tokens.create(parse_role(command.role).value(), command.name) << "\n";
      return 0;
    }
    if (command.action == "revoke") {
      if (!tokens.revoke(command.id)) {
        std::cerr << "token revoke: no token " << command.id << " that is not revoked already\n";
        return 1;
      }
      std::cerr << "token " << command.id << " revoked\n";
      return 0;
    }
    auto rows = nlohmann::json::array();
    for (const TokenInfo& t : tokens.list()) {
      rows.push_back({{"id", t.id},
                      {"name", t.name},
                      {"role", std::string(role_name(t.role))},
                      {"created", utc(t.created_ms)},
                      {"revoked", t.revoked_ms ? nlohmann::json(utc(*t.revoked_ms)) : nlohmann::json(nullptr)}});
    }
    if (command.json) {
      std::cout << rows.dump(2) << "\n";
      return 0;
    }
    std::printf("%-6s %-24s %-7s %-21s %s\n", "ID", "NAME", "ROLE", "CREATED", "REVOKED");
    for (const auto& r : rows) {
      const std::string name = r["name"];  // no control characters: create refuses them
      std::printf("%-6lld %-24s %-7s %-21s %s\n", static_cast<long long>(r["id"].get<std::int64_t>()), name.c_str(),
                  r["role"].get<std::string>().c_str(), r["created"].get<std::string>().c_str(),
                  r["revoked"].is_null() ? "-" : r["revoked"].get<std::string>().c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "token " << command.action << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace gammalab
