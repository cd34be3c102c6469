// How the C++ example bot chooses: one simple, deterministic rule per game.
//
// A port of bots/js/rules.js (same rules, same tie-breaks: the earliest of
// equally scored actions). Each rule reads a DecisionRequest and returns an
// index into request.legal_actions. No rule uses randomness, so the same
// request always gets the same answer.
//
// Header-only and included by bot.cc alone, so the bot stays one translation
// unit (one compiler run besides the generated stubs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "circus/v1/bot.pb.h"

namespace rules {

using circus::v1::DecisionRequest;
using google::protobuf::RepeatedField;
using google::protobuf::RepeatedPtrField;

constexpr double kNone = -std::numeric_limits<double>::infinity();

// -- helpers ------------------------------------------------------------------

// The index of the highest score; ties go to the earliest. -1 when every
// score is kNone (no candidate).
template <typename Container, typename Score>
int argmax(const Container& items, Score score) {
  int best = -1;
  double best_score = kNone;
  int index = 0;
  for (const auto& item : items) {
    double value = score(item);
    if (value > best_score) {
      best = index;
      best_score = value;
    }
    ++index;
  }
  return best;
}

// Element i of a repeated scalar field, or `otherwise` when there is none.
// The referee always sends consistent messages, but an out-of-range Get() is
// undefined behaviour in C++, so every by-seat lookup goes through here.
template <typename T>
T at(const RepeatedField<T>& field, int64_t i, T otherwise = T()) {
  return i >= 0 && i < field.size() ? field.Get(static_cast<int>(i)) : otherwise;
}

// Element i of a repeated message field, or its default instance.
template <typename T>
const T& at(const RepeatedPtrField<T>& field, int64_t i) {
  return i >= 0 && i < field.size() ? field.Get(static_cast<int>(i)) : T::default_instance();
}

// The other seats, clockwise from the left neighbour (seat + 1).
inline std::vector<int> others(int seat, int players) {
  std::vector<int> seats;
  for (int step = 1; step < players; ++step) seats.push_back((seat + step) % players);
  return seats;
}

// A fallback for a decision no rule knows: an index drawn from a hash
// (FNV-1a) of game_id and decision_id, so it is the same for the same request.
inline int hashed_index(const DecisionRequest& request) {
  std::string key = request.game_id() + "/" + std::to_string(request.decision_id());
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : key) hash = (hash ^ c) * 1099511628211ull;
  return static_cast<int>(hash % static_cast<uint64_t>(request.legal_actions_size()));
}

// A decision kind a rule does not know (the protocol may add some): play the
// fallback, and say so once per game and kind on stderr (the bot's log).
// Decide runs on several threads at once, hence the lock.
inline int no_rule(const DecisionRequest& request, const std::string& what) {
  static std::mutex lock;
  static std::set<std::string> reported;
  {
    std::lock_guard<std::mutex> guard(lock);
    if (reported.insert(request.game_id() + "/" + what).second) {
      std::cerr << "cpp-rules: no rule for " << what << " in " << request.game_id()
                << ": playing a hashed pick\n";
    }
  }
  return hashed_index(request);
}

// -- Amazing Flea Circus: the most loot this turn ------------------------------
//
// A play is worth the loot it brings now; loot taken from a rival counts
// double (it also costs them). The General is worth half of what it makes the
// rivals give back. A counterattack goes to the richest rival.

inline int flea_circus(const DecisionRequest& request) {
  const auto& obs = request.observation().flea_circus();
  const auto& actions = request.legal_actions();
  const int seat = static_cast<int>(obs.seat());
  const std::vector<int> rivals = others(seat, obs.loot_size());
  auto loot = [&](int64_t s) { return static_cast<double>(at(obs.loot(), s)); };
  auto top = [&](int s) -> const circus::v1::FleaCard* {
    const auto& cards = at(obs.piles(), s).cards();
    return cards.empty() ? nullptr : &cards.Get(cards.size() - 1);
  };

  if (request.kind() == "target") {
    return argmax(actions, [&](const auto& a) { return loot(a.payload().flea_circus().target()); });
  }
  if (request.kind() != "play") return no_rule(request, "flea-circus decision " + request.kind());

  int recruit_tops = 0;
  for (int s : rivals) recruit_tops += top(s) && top(s)->kind() == "recruitment";
  auto give_back = [&](int s) {
    const auto* card = top(s);
    if (!card) return 0.0;
    double value = 0;
    if (card->kind() == "saucer") value = card->value();
    else if (card->kind() == "numbers") value = 1;
    else if (card->kind() == "counterattack") value = 2;
    else if (card->kind() == "recruitment") value = recruit_tops;
    return std::min(value, loot(s));
  };
  const double earth = obs.earth();

  return argmax(actions, [&](const auto& a) -> double {
    const auto& action = a.payload().flea_circus();
    const auto& card = action.card();
    if (card.kind() == "saucer") {
      for (int s : rivals) {
        if (top(s) && top(s)->saucer() == card.saucer()) {
          return 2 * std::min<double>(card.value(), loot(s));
        }
      }
      return std::min<double>(card.value(), earth);
    }
    if (card.kind() == "numbers") return std::min<double>(action.count(), earth) + 0.01 * action.count();
    if (card.kind() == "recruitment") return std::min<double>(recruit_tops + 1, earth);
    if (card.kind() == "counterattack") {
      double richest = 0;
      for (int s : rivals) richest = std::max(richest, loot(s));
      return 2 * std::min(2.0, richest);
    }
    if (card.kind() == "general") {
      double sum = 0;
      for (int s : rivals) sum += give_back(s);
      return 0.5 * sum;
    }
    return 0;
  });
}

// -- Circus Flohcati: push your luck less as the display fills -------------------
//
// A card is worth what it adds to the hand's score (the best card of each
// colour) plus a little for pairs and new colours. The bot flips while the
// best card on offer is worth less than 5 minus the number of cards showing,
// gives away its least useful card, lays down a trio when 10 points beat what
// the three cards score in hand, and calls the Gala when it leads by what it
// can see (an opponent's unknown cards counted at 2 points each).

using FlohcatiCards = std::vector<const circus::v1::FlohcatiCard*>;

// The hand's score: the best circus card of each colour.
inline double hand_points(const FlohcatiCards& cards) {
  std::map<std::string, uint32_t> best;
  for (const auto* card : cards) {
    if (card->kind() != "circus") continue;
    uint32_t& value = best[card->colour()];
    value = std::max(value, card->value());
  }
  double sum = 0;
  for (const auto& entry : best) sum += entry.second;
  return sum;
}

inline FlohcatiCards pointers(const RepeatedPtrField<circus::v1::FlohcatiCard>& cards) {
  FlohcatiCards result;
  for (const auto& card : cards) result.push_back(&card);
  return result;
}

inline int flohcati(const DecisionRequest& request) {
  const auto& obs = request.observation().flohcati();
  const auto& actions = request.legal_actions();
  const FlohcatiCards hand = pointers(obs.hand());
  auto payload = [](const circus::v1::LegalAction& a) -> const auto& { return a.payload().flohcati(); };

  // The best value held in a colour, -1 for none.
  auto best_of = [&](const std::string& colour) {
    double best = -1;
    for (const auto* c : hand) {
      if (c->colour() == colour) best = std::max<double>(best, c->value());
    }
    return best;
  };
  auto same_value = [&](uint32_t value) {
    int count = 0;
    for (const auto* c : hand) count += c->kind() == "circus" && c->value() == value;
    return count;
  };
  auto gain = [&](const circus::v1::FlohcatiCard& card) -> double {
    if (card.kind() != "circus") return 0;
    double held = best_of(card.colour());
    int pairs = same_value(card.value()) % 3;
    return std::max(0.0, card.value() - std::max(held, 0.0)) + (held < 0 ? 0.5 : 0)
        + (pairs == 1 ? 1 : pairs == 2 ? 5 : 0) + 0.01 * card.value();
  };
  auto find = [&](const std::string& type) {
    for (int i = 0; i < actions.size(); ++i) {
      if (payload(actions.Get(i)).type() == type) return i;
    }
    return -1;
  };
  auto without = [&](const std::set<std::string>& codes) {
    FlohcatiCards rest;
    for (const auto* c : hand) {
      if (!codes.count(c->code())) rest.push_back(c);
    }
    return rest;
  };
  const std::string& decision = obs.decision();

  if (decision == "turn" || decision == "nueva" || decision == "open-take" || decision == "match") {
    int best = -1;
    double best_gain = -1;
    for (int i = 0; i < actions.size(); ++i) {
      const auto& action = payload(actions.Get(i));
      if (action.type() != "take" && action.type() != "take-match") continue;
      double value = gain(action.card());
      if (best < 0 || value > best_gain) {
        best = i;
        best_gain = value;
      }
    }
    int flip = find("flip");
    // Nueva atraccion cannot bust: flip on while nothing good shows.
    double wanted = decision == "nueva" ? 5 : 5 - obs.display_size();
    if (flip >= 0 && best_gain < wanted) return flip;
    if (best >= 0) return best;
    return std::max(find("stop"), 0);
  }
  if (decision == "target") {  // the opponent with the most cards
    return argmax(actions, [&](const auto& a) {
      return static_cast<double>(at(obs.hand_sizes(), payload(a).target()));
    });
  }
  if (decision == "give") {  // the card whose loss costs least
    return argmax(actions, [&](const auto& a) {
      const auto& card = payload(a).card();
      return -(hand_points(hand) - hand_points(without({card.code()})) + 0.1 * card.value()
               + (same_value(card.value()) >= 2 ? 3 : 0));
    });
  }
  if (decision == "request") {  // the colour we hold lowest (or not at all)
    return argmax(actions, [&](const auto& a) {
      return -best_of(payload(a).colour()) - (payload(a).direction() == "cw" ? 0 : 0.5);
    });
  }
  if (decision == "end-of-turn" || decision == "trio" || decision == "gala") {
    // A trio that gains, then done or the Gala.
    auto worth = [&](const circus::v1::FlohcatiAction& action) {
      std::set<std::string> codes;
      for (const auto& c : action.cards()) codes.insert(c.code());
      return 10 - (hand_points(hand) - hand_points(without(codes)));
    };
    int lay = argmax(actions, [&](const auto& a) {
      return payload(a).type() == "trio" ? worth(payload(a)) : kNone;
    });
    if (lay >= 0 && worth(payload(actions.Get(lay))) > 0) return lay;
    if (find("gala") < 0) return find("done");
    const int seat = static_cast<int>(obs.seat());
    double mine = hand_points(hand) + 10.0 * at(obs.trios(), seat).trios_size() + obs.gala_bonus();
    double rivals = 0;
    for (int s : others(seat, obs.hand_sizes_size())) {
      const auto& known = at(obs.known_cards(), s).cards();
      double unknown = static_cast<double>(at(obs.hand_sizes(), s)) - known.size();
      rivals = std::max(rivals, 10.0 * at(obs.trios(), s).trios_size()
                                    + hand_points(pointers(known)) + 2 * unknown);
    }
    const bool call = mine >= rivals;
    for (int i = 0; i < actions.size(); ++i) {
      const auto& action = payload(actions.Get(i));
      if (action.type() == "gala" && action.call() == call) return i;
    }
    return -1;
  }
  return no_rule(request, "flohcati decision " + decision);
}

// -- Animal Circus: leave the Ring as high as you can ------------------------------
//
// The Ring goes to the player before the one who cannot beat it, so the bot
// adds its highest card (never willingly the Dog, -3 points), starts a new
// Ring only when it must, and aims abilities at the leader.

constexpr uint32_t kDog = 8;
constexpr uint32_t kGiraffe = 19;

inline double card_points(const circus::v1::AnimalCard& card) {
  return card.value() == kDog ? -3 : card.value() == kGiraffe ? 3 : 1;
}

inline int animal_circus(const DecisionRequest& request) {
  const auto& obs = request.observation().animal_circus();
  const auto& actions = request.legal_actions();
  auto payload = [](const circus::v1::LegalAction& a) -> const auto& {
    return a.payload().animal_circus();
  };
  const int64_t seat = obs.seat();
  auto pile = [&](int64_t s) -> const auto& { return at(obs.score_piles(), s).cards(); };
  // The top of a Score pile; an empty pile reads as a card of value 0.
  auto top_of = [&](int64_t s) -> const circus::v1::AnimalCard& {
    const auto& cards = pile(s);
    return cards.empty() ? circus::v1::AnimalCard::default_instance() : cards.Get(cards.size() - 1);
  };
  auto lead = [&](int64_t s) { return at(obs.scores(), s) - (s == seat ? 100.0 : 0.0); };
  const std::string& kind = obs.decision().kind();

  if (kind == "play") {
    return argmax(actions, [&](const auto& a) {
      const auto& action = payload(a);
      // -10.0, not -10: with an unsigned value() beside it, -10 would wrap around.
      double value = action.card().value() == kDog ? -10.0 : action.card().value();
      if (action.ring_winner() == seat) return 1000 + value;
      if (action.type() == "ring") return 100 + value;
      return value;  // a new Ring: the previous player takes the old one
    });
  }
  if (kind == "target") {
    switch (obs.decision().ability()) {
      case 4:  // Rabbit: the Score-pile top worth most in hand
        return argmax(actions, [&](const auto& a) {
          return static_cast<double>(top_of(payload(a).target()).value());
        });
      case 7:  // Camel: the two Score-pile cards worth most
        return argmax(actions, [&](const auto& a) {
          const auto& cards = pile(payload(a).target());
          double sum = 0;
          for (int i = std::max(0, cards.size() - 2); i < cards.size(); ++i) sum += card_points(cards.Get(i));
          return sum;
        });
      case 12:  // Rat: the top we would rather own than ours
        return argmax(actions, [&](const auto& a) {
          return pile(payload(a).target()).empty() ? 0.0 : card_points(top_of(payload(a).target()));
        });
      default:  // Penguin, Kangaroo: the leader, then the fullest hand
        return argmax(actions, [&](const auto& a) {
          int64_t target = payload(a).target();
          return lead(target) * 100 + at(obs.hand_sizes(), target);
        });
    }
  }
  if (kind == "pile") {  // Monkey: the biggest rival Draw pile
    return argmax(actions, [&](const auto& a) {
      int64_t target = payload(a).pile();
      return at(obs.draw_sizes(), target) - (target == seat ? 1000.0 : 0.0);
    });
  }
  if (kind == "order") {  // Owl: the highest cards on top
    return argmax(actions, [&](const auto& a) {
      double sum = 0, weight = 23.0 * 23 * 23;
      for (const auto& card : payload(a).order()) {
        sum += card.value() * weight;
        weight /= 23;
      }
      return sum;
    });
  }
  return no_rule(request, "animal-circus decision " + kind);
}

// -- dispatch ---------------------------------------------------------------------

// The games this bot plays, by name as in `circus-referee games`.
inline const std::vector<std::string>& games() {
  static const std::vector<std::string> names = {"flea-circus", "flohcati", "animal-circus"};
  return names;
}

// The index of the action to play for a DecisionRequest. The game is read
// from the observation (its oneof), so no state from StartGame is needed.
inline int choose(const DecisionRequest& request) {
  const int count = request.legal_actions_size();
  if (count <= 1) return 0;
  int index;
  std::string game;
  switch (request.observation().game_case()) {
    case circus::v1::Observation::kFleaCircus:
      game = "flea-circus";
      index = flea_circus(request);
      break;
    case circus::v1::Observation::kFlohcati:
      game = "flohcati";
      index = flohcati(request);
      break;
    case circus::v1::Observation::kAnimalCircus:
      game = "animal-circus";
      index = animal_circus(request);
      break;
    default:  // a game added to the protocol after this bot was written
      return no_rule(request, "game #" + std::to_string(request.observation().game_case()));
  }
  if (index >= 0 && index < count) return index;
  return no_rule(request, game + " (the rule chose " + std::to_string(index) + ")");
}

}  // namespace rules
