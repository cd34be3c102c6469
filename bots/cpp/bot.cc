// A circus-referee bot in C++: a gRPC server for the service circus.v1.Bot.
//
// The message and service code is generated from the project's proto/ folder
// at build time (see the Makefile); the choice of each move is in rules.h.
//
//   make -C bots/cpp -j2                         # builds bots/cpp/build/cpp-rules
//   bots/cpp/build/cpp-rules --port 50051        # or CIRCUS_BOT_PORT=50051
//   bots/cpp/build/cpp-rules --address unix:/tmp/bot.sock   # or CIRCUS_BOT_ADDRESS
//
// In a bots.yaml: `command: bots/cpp/build/cpp-rules` (the referee passes the
// address in the environment).

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include <grpcpp/grpcpp.h>

#include "circus/v1/bot.grpc.pb.h"
#include "rules.h"

namespace {

const char* const kName = "cpp-rules";
const char* const kVersion = "1.0.0";
const char* const kProtocolVersion = "1.0.0";
const int kMaxMessageBytes = 64 * 1024 * 1024;

// One line to stderr (the bot's log). Calls arrive on several threads: the
// lock keeps lines whole.
std::mutex log_lock;
void log(const std::string& message) {
  std::lock_guard<std::mutex> guard(log_lock);
  std::cerr << kName << ": " << message << std::endl;
}

[[noreturn]] void usage(const std::string& problem) {
  if (!problem.empty()) std::cerr << kName << ": " << problem << "\n";
  std::cerr << "usage: cpp-rules [--address ADDR | --port PORT]\n"
               "  --address ADDR  a gRPC address: unix:/path/bot.sock or 127.0.0.1:PORT\n"
               "                  (default: $CIRCUS_BOT_ADDRESS)\n"
               "  --port PORT     listen on 127.0.0.1:PORT (default: $CIRCUS_BOT_PORT)\n"
               "The command line wins over the environment, and an address over a port.\n";
  std::exit(problem.empty() ? 0 : 2);
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string port_address(const std::string& text) {
  char* end = nullptr;
  long port = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || port < 1 || port > 65535) usage("bad port \"" + text + "\"");
  // Loopback only: the referee runs on the same machine.
  return "127.0.0.1:" + std::to_string(port);
}

// --address ADDR, else --port N, else $CIRCUS_BOT_ADDRESS, else $CIRCUS_BOT_PORT.
std::string listen_address(int argc, char** argv) {
  std::string address, port;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string& flag, std::string& into) {
      if (arg == flag) {
        if (i + 1 >= argc) usage(flag + " needs a value");
        into = argv[++i];
        return true;
      }
      if (arg.rfind(flag + "=", 0) == 0) {
        into = arg.substr(flag.size() + 1);
        return true;
      }
      return false;
    };
    if (arg == "-h" || arg == "--help") usage("");
    if (!value("--address", address) && !value("--port", port)) {
      usage("unknown argument \"" + arg + "\"");
    }
  }
  if (!address.empty()) return address;
  if (!port.empty()) return port_address(port);
  if (!env("CIRCUS_BOT_ADDRESS").empty()) return env("CIRCUS_BOT_ADDRESS");
  if (!env("CIRCUS_BOT_PORT").empty()) return port_address(env("CIRCUS_BOT_PORT"));
  usage("give --address or --port, or set CIRCUS_BOT_ADDRESS or CIRCUS_BOT_PORT");
}

class BotService final : public circus::v1::Bot::Service {
 public:
  grpc::Status Hello(grpc::ServerContext*, const circus::v1::HelloRequest* request,
                     circus::v1::HelloResponse* reply) override {
    const std::string& theirs = request->protocol_version();
    if (major(theirs) != major(kProtocolVersion)) {
      log("the referee speaks protocol " + theirs + ", this bot " + kProtocolVersion);
    }
    reply->set_name(kName);
    reply->set_version(kVersion);
    reply->set_protocol_version(kProtocolVersion);
    for (const auto& game : rules::games()) {
      reply->add_games()->set_game(game);  // no variants listed: every variant
    }
    return grpc::Status::OK;
  }

  grpc::Status StartGame(grpc::ServerContext*, const circus::v1::StartGameRequest* request,
                         circus::v1::StartGameResponse*) override {
    {
      std::lock_guard<std::mutex> guard(games_lock_);
      decisions_[request->game_id()] = 0;
    }
    std::ostringstream line;
    line << "start " << request->game_id() << ": " << request->game() << " ("
         << request->variant() << "), seat " << request->seat() << " of "
         << request->num_players();
    log(line.str());
    return grpc::Status::OK;
  }

  grpc::Status Decide(grpc::ServerContext*, const circus::v1::DecisionRequest* request,
                      circus::v1::Decision* reply) override {
    {
      std::lock_guard<std::mutex> guard(games_lock_);
      auto game = decisions_.find(request->game_id());
      if (game != decisions_.end()) ++game->second;
    }
    int index = 0;
    try {
      index = rules::choose(*request);
    } catch (const std::exception& error) {
      // A bug in a rule must not cost the game: play the first legal action.
      log("rule failed on " + request->game_id() + " #" +
          std::to_string(request->decision_id()) + ": " + error.what());
    }
    reply->set_decision_id(request->decision_id());  // echoed, or the answer is stale
    reply->set_action_index(static_cast<uint32_t>(index));
    return grpc::Status::OK;
  }

  grpc::Status EndGame(grpc::ServerContext*, const circus::v1::EndGameRequest* request,
                       circus::v1::EndGameResponse*) override {
    std::string after;
    {
      std::lock_guard<std::mutex> guard(games_lock_);
      auto game = decisions_.find(request->game_id());
      if (game != decisions_.end()) {
        after = " after " + std::to_string(game->second) + " decisions";
        decisions_.erase(game);
      }
    }
    const int seat = static_cast<int>(request->seat());
    std::ostringstream line;
    line << "end " << request->game_id() << " (" << request->status() << ", "
         << request->reason() << "): seat " << seat << " scored "
         << rules::at(request->scores(), seat) << ", rank " << rules::at(request->ranks(), seat)
         << " of " << request->ranks_size() << after;
    log(line.str());
    return grpc::Status::OK;
  }

 private:
  static std::string major(const std::string& version) {
    return version.substr(0, version.find('.'));
  }

  // Decisions answered so far, by game_id, for the log line at EndGame.
  std::mutex games_lock_;
  std::map<std::string, int> decisions_;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string address = listen_address(argc, argv);

  // SIGTERM (the referee stopping the bot) and SIGINT are taken with
  // sigwait() below. They must be blocked before gRPC starts any thread, as
  // threads inherit the mask: a thread that does not block them would take the
  // signal and die of it (exit status -15), with no clean shutdown.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  BotService service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  // Never share the port (gRPC does by default, with SO_REUSEPORT): given a
  // port another process listens on, fail here instead of splitting its calls.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  // Few threads: the referee's memory limit (limits.memory_mb) counts every
  // thread's stack (8 MB each by default). One completion queue with at most
  // two idle pollers; a thread per call in flight is added on demand, which
  // the referee bounds by its concurrency (one call at a time per game).
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::NUM_CQS, 1);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 1);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 2);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    log("cannot listen on " + address);
    return 1;
  }
  log("listening on " + address);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log(std::string(signal_number == SIGTERM ? "SIGTERM" : "SIGINT") + ": shutting down");
  // Let calls in flight finish, but quickly: the referee kills the process
  // group 1 s after SIGTERM. Past the deadline, pending calls are cancelled.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
  server->Wait();
  return 0;
}
