package main

// How go-rules chooses: the Node.js example bot's rule for each game
// (bots/js/rules.js), ported move for move. Every rule reads the typed
// observation and payloads and returns an index into legal_actions; none uses
// randomness, so the same request always gets the same answer.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"sort"
	"strings"
	"sync"

	pb "circusbot/circusv1"
)

// rules: the games this bot plays, by name, with the rule for each.
var rules = map[string]func(*pb.DecisionRequest) int{
	"flea-circus":   fleaCircus,
	"flohcati":      flohcati,
	"animal-circus": animalCircus,
}

// gameNames lists the games of rules, sorted: the games Hello claims.
func gameNames() []string {
	names := make([]string, 0, len(rules))
	for name := range rules {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// choose returns the index of the action to play.
func choose(request *pb.DecisionRequest) int {
	count := len(request.LegalActions)
	if count <= 1 {
		return 0
	}
	game := strings.ReplaceAll(oneofName(request.GetObservation()), "_", "-")
	rule, known := rules[game]
	if !known {
		return noRule(request, "game "+game)
	}
	if index := rule(request); index >= 0 && index < count {
		return index
	}
	return noRule(request, game+" (the rule chose no action)")
}

// oneofName is the name of the observation's oneof field that is set, e.g. "flea_circus".
func oneofName(observation *pb.Observation) string {
	message := observation.ProtoReflect()
	field := message.WhichOneof(message.Descriptor().Oneofs().ByName("game"))
	if field == nil {
		return ""
	}
	return string(field.Name())
}

// hashedIndex is the fallback for a decision no rule knows: an index drawn from
// a hash of game_id and decision_id, the same for the same request.
func hashedIndex(request *pb.DecisionRequest) int {
	digest := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", request.GameId, request.DecisionId)))
	return int(binary.BigEndian.Uint32(digest[:4]) % uint32(len(request.LegalActions)))
}

var reported sync.Map // game_id/what: a rule found missing, said once

// noRule plays the fallback and says so once per game and kind (the protocol
// may add decision kinds).
func noRule(request *pb.DecisionRequest, what string) int {
	if _, seen := reported.LoadOrStore(request.GameId+"/"+what, true); !seen {
		log.Printf("no rule for %s in %s: playing a hashed pick", what, request.GameId)
	}
	return hashedIndex(request)
}

// argmax is the index of the highest score among n items; ties go to the earliest.
func argmax(n int, score func(int) float64) int {
	best, bestScore := -1, math.Inf(-1)
	for index := 0; index < n; index++ {
		if value := score(index); value > bestScore {
			best, bestScore = index, value
		}
	}
	return best
}

// others lists the other seats, clockwise from the left neighbour.
func others(seat, players int) []int {
	seats := make([]int, 0, players)
	for step := 1; step < players; step++ {
		seats = append(seats, (seat+step)%players)
	}
	return seats
}

// -- Amazing Flea Circus: the most loot this turn ------------------------------
//
// A play is worth the loot it brings now; loot taken from a rival counts
// double. The General is worth half of what it makes the rivals give back. A
// counterattack goes to the richest rival.

func fleaCircus(request *pb.DecisionRequest) int {
	obs := request.GetObservation().GetFleaCircus()
	actions := request.LegalActions
	move := func(i int) *pb.FleaCircusAction { return actions[i].GetPayload().GetFleaCircus() }
	loot := func(seat int) float64 { return float64(obs.Loot[seat]) }
	rivals := others(int(obs.Seat), len(obs.Loot))
	top := func(seat int) *pb.FleaCard {
		if seat >= len(obs.Piles) || len(obs.Piles[seat].Cards) == 0 {
			return nil
		}
		cards := obs.Piles[seat].Cards
		return cards[len(cards)-1]
	}
	switch request.Kind {
	case "target":
		return argmax(len(actions), func(i int) float64 { return loot(int(move(i).Target)) })
	case "play":
	default:
		return noRule(request, "flea-circus decision "+request.Kind)
	}
	recruitTops := 0
	for _, seat := range rivals {
		if top(seat).GetKind() == "recruitment" {
			recruitTops++
		}
	}
	giveBack := func(seat int) float64 {
		card := top(seat)
		value := map[string]float64{"saucer": float64(card.GetValue()), "numbers": 1,
			"counterattack": 2, "recruitment": float64(recruitTops)}[card.GetKind()]
		return math.Min(value, loot(seat))
	}
	earth := float64(obs.Earth)
	return argmax(len(actions), func(i int) float64 {
		action := move(i)
		card := action.GetCard()
		switch card.GetKind() {
		case "saucer":
			for _, seat := range rivals {
				if top(seat).GetSaucer() == card.Saucer {
					return 2 * math.Min(float64(card.Value), loot(seat))
				}
			}
			return math.Min(float64(card.Value), earth)
		case "numbers":
			return math.Min(float64(action.Count), earth) + 0.01*float64(action.Count)
		case "recruitment":
			return math.Min(float64(recruitTops+1), earth)
		case "counterattack":
			richest := 0.0
			for _, seat := range rivals {
				richest = math.Max(richest, loot(seat))
			}
			return 2 * math.Min(2, richest)
		case "general":
			total := 0.0
			for _, seat := range rivals {
				total += giveBack(seat)
			}
			return 0.5 * total
		}
		return 0
	})
}

// -- Circus Flohcati: push your luck less as the display fills -------------------
//
// A card is worth what it adds to the hand's score (the best card of each
// colour) plus a little for pairs and new colours. The bot flips while the best
// card on offer is worth less than 5 minus the cards showing, gives away its
// least useful card, lays down a trio when 10 points beat what the three score
// in hand, and calls the Gala when it leads by what it can see (an opponent's
// unknown cards counted at 2 points each).

func handPoints(cards []*pb.FlohcatiCard) float64 {
	best := map[string]uint32{}
	for _, card := range cards {
		if card.Kind == "circus" && card.Value >= best[card.Colour] {
			best[card.Colour] = card.Value
		}
	}
	total := 0.0
	for _, value := range best {
		total += float64(value)
	}
	return total
}

func without(hand []*pb.FlohcatiCard, gone []*pb.FlohcatiCard) []*pb.FlohcatiCard {
	codes := map[string]bool{}
	for _, card := range gone {
		codes[card.Code] = true
	}
	kept := []*pb.FlohcatiCard{}
	for _, card := range hand {
		if !codes[card.Code] {
			kept = append(kept, card)
		}
	}
	return kept
}

func flohcati(request *pb.DecisionRequest) int {
	obs := request.GetObservation().GetFlohcati()
	actions := request.LegalActions
	move := func(i int) *pb.FlohcatiAction { return actions[i].GetPayload().GetFlohcati() }
	hand := obs.Hand
	bestOf := func(colour string) float64 {
		best := -1.0
		for _, card := range hand {
			if card.Colour == colour {
				best = math.Max(best, float64(card.Value))
			}
		}
		return best
	}
	sameValue := func(value uint32) int {
		count := 0
		for _, card := range hand {
			if card.Kind == "circus" && card.Value == value {
				count++
			}
		}
		return count
	}
	gain := func(card *pb.FlohcatiCard) float64 {
		if card.GetKind() != "circus" {
			return 0
		}
		held := bestOf(card.Colour)
		worth := math.Max(0, float64(card.Value)-math.Max(held, 0)) + 0.01*float64(card.Value)
		if held < 0 {
			worth += 0.5
		}
		return worth + map[int]float64{1: 1, 2: 5}[sameValue(card.Value)%3]
	}
	find := func(kind string) int {
		for i := range actions {
			if move(i).Type == kind {
				return i
			}
		}
		return -1
	}

	switch obs.Decision {
	case "turn", "nueva", "open-take", "match":
		best := argmax(len(actions), func(i int) float64 {
			if kind := move(i).Type; kind == "take" || kind == "take-match" {
				return gain(move(i).Card)
			}
			return math.Inf(-1)
		})
		bestGain := -1.0 // -1: no take on offer (argmax found none above -Inf)
		if best >= 0 {
			bestGain = gain(move(best).Card)
		}
		wanted := 5 - float64(len(obs.Display))
		if obs.Decision == "nueva" { // Nueva atracción cannot bust: flip on while nothing good shows
			wanted = 5
		}
		if flip := find("flip"); flip >= 0 && bestGain < wanted {
			return flip
		}
		if best >= 0 {
			return best
		}
		if stop := find("stop"); stop >= 0 {
			return stop
		}
		return 0
	case "target": // the opponent with the most cards
		return argmax(len(actions), func(i int) float64 { return float64(obs.HandSizes[move(i).Target]) })
	case "give": // the card whose loss costs least
		return argmax(len(actions), func(i int) float64 {
			card := move(i).Card
			cost := handPoints(hand) - handPoints(without(hand, []*pb.FlohcatiCard{card})) +
				0.1*float64(card.GetValue())
			if sameValue(card.GetValue()) >= 2 {
				cost += 3
			}
			return -cost
		})
	case "request": // the colour we hold lowest (or not at all)
		return argmax(len(actions), func(i int) float64 {
			score := -bestOf(move(i).Colour)
			if move(i).Direction != "cw" {
				score -= 0.5
			}
			return score
		})
	case "end-of-turn", "trio", "gala": // a trio that gains, then done or the Gala
		worth := func(i int) float64 {
			return 10 - (handPoints(hand) - handPoints(without(hand, move(i).Cards)))
		}
		lay := argmax(len(actions), func(i int) float64 {
			if move(i).Type == "trio" {
				return worth(i)
			}
			return math.Inf(-1)
		})
		if lay >= 0 && worth(lay) > 0 {
			return lay
		}
		if find("gala") < 0 {
			return find("done")
		}
		mine := handPoints(hand) + 10*float64(len(obs.Trios[obs.Seat].GetTrios())) + float64(obs.GalaBonus)
		rivals := 0.0
		for _, seat := range others(int(obs.Seat), len(obs.HandSizes)) {
			known := obs.KnownCards[seat].GetCards()
			rivals = math.Max(rivals, 10*float64(len(obs.Trios[seat].GetTrios()))+handPoints(known)+
				2*float64(int(obs.HandSizes[seat])-len(known)))
		}
		call := mine >= rivals
		for i := range actions {
			if move(i).Type == "gala" && move(i).Call == call {
				return i
			}
		}
		return -1
	}
	return noRule(request, "flohcati decision "+obs.Decision)
}

// -- Animal Circus: leave the Ring as high as you can ----------------------------
//
// The Ring goes to the player before the one who cannot beat it, so the bot
// wins a Ring when a play does (ring_winner), else adds its highest card (never
// willingly the Dog, -3 points), starts a new Ring only when it must, and aims
// abilities at the leader.

const (
	dog     = 8
	giraffe = 19
)

func cardPoints(card *pb.AnimalCard) float64 {
	switch card.GetValue() {
	case dog:
		return -3
	case giraffe:
		return 3
	}
	return 1
}

func animalCircus(request *pb.DecisionRequest) int {
	obs := request.GetObservation().GetAnimalCircus()
	actions := request.LegalActions
	move := func(i int) *pb.AnimalCircusAction { return actions[i].GetPayload().GetAnimalCircus() }
	pile := func(seat uint32) []*pb.AnimalCard { return obs.ScorePiles[seat].GetCards() }
	topOf := func(seat uint32) *pb.AnimalCard {
		if cards := pile(seat); len(cards) > 0 {
			return cards[len(cards)-1]
		}
		return nil
	}
	lead := func(seat uint32) float64 {
		if seat == obs.Seat {
			return float64(obs.Scores[seat]) - 100
		}
		return float64(obs.Scores[seat])
	}
	switch obs.GetDecision().GetKind() {
	case "play":
		return argmax(len(actions), func(i int) float64 {
			action := move(i)
			value := float64(action.Card.GetValue())
			if action.Card.GetValue() == dog {
				value = -10
			}
			switch {
			case action.RingWinner == int32(obs.Seat):
				return 1000 + value
			case action.Type == "ring":
				return 100 + value
			}
			return value // a new Ring: the previous player takes the old one
		})
	case "target":
		switch obs.Decision.Ability {
		case 4: // Rabbit: the Score-pile top worth most in hand
			return argmax(len(actions), func(i int) float64 { return float64(topOf(move(i).Target).GetValue()) })
		case 7: // Camel: the two Score-pile cards worth most
			return argmax(len(actions), func(i int) float64 {
				cards, total := pile(move(i).Target), 0.0
				for k := len(cards) - 2; k < len(cards); k++ {
					if k >= 0 {
						total += cardPoints(cards[k])
					}
				}
				return total
			})
		case 12: // Rat: the top we would rather own than ours
			return argmax(len(actions), func(i int) float64 { return cardPoints(topOf(move(i).Target)) })
		}
		// Penguin, Kangaroo: the leader, then the fullest hand
		return argmax(len(actions), func(i int) float64 {
			target := move(i).Target
			return lead(target)*100 + float64(obs.HandSizes[target])
		})
	case "pile": // Monkey: the biggest rival Draw pile
		return argmax(len(actions), func(i int) float64 {
			seat := move(i).Pile
			if seat == obs.Seat {
				return float64(obs.DrawSizes[seat]) - 1000
			}
			return float64(obs.DrawSizes[seat])
		})
	case "order": // Owl: the highest cards on top
		return argmax(len(actions), func(i int) float64 {
			total := 0.0
			for position, card := range move(i).Order {
				total += float64(card.Value) * math.Pow(23, float64(3-position))
			}
			return total
		})
	}
	return noRule(request, "animal-circus decision "+obs.GetDecision().GetKind())
}
