// A random bot on the stdio transport, with nothing but Go's standard library.
//
// The referee writes one request per line on stdin (JSON, docs/protocol.md "The stdio
// transport"); the bot writes one reply per line on stdout, in order, with the request's
// request_id. Its choice is seeded by the game and decision, so a replayed game plays
// the same. Build it with `make -C bots/stdio` (plain `go build`: no module to download).
//
//	command: bots/stdio/build/stdio-random
//	transport: stdio
package main

import (
	"bufio"
	"encoding/json"
	"hash/fnv"
	"os"
)

// One request: request_id and exactly one call. A 64-bit id arrives as a JSON string
// (protobuf's JSON mapping); RawMessage echoes it back as it came.
type request struct {
	RequestID json.RawMessage  `json:"request_id"`
	Hello     *json.RawMessage `json:"hello"`
	StartGame *json.RawMessage `json:"start_game"`
	Decide    *decision        `json:"decide"`
	EndGame   *json.RawMessage `json:"end_game"`
}

type decision struct {
	GameID       string            `json:"game_id"`
	DecisionID   json.RawMessage   `json:"decision_id"`
	LegalActions []json.RawMessage `json:"legal_actions"`
}

var games = []map[string]string{
	{"game": "flea-circus"}, {"game": "flohcati"}, {"game": "animal-circus"},
}

func answer(message request) map[string]any {
	reply := map[string]any{"request_id": message.RequestID}
	switch {
	case message.Hello != nil:
		reply["hello"] = map[string]any{"name": "stdio-random-go", "version": "1.0",
			"protocol_version": "1.1.0", "games": games}
	case message.Decide != nil:
		seed := fnv.New32a()
		seed.Write([]byte(message.Decide.GameID + "/" + string(message.Decide.DecisionID)))
		index := int(seed.Sum32() % uint32(len(message.Decide.LegalActions)))
		reply["decide"] = map[string]any{"decision_id": message.Decide.DecisionID,
			"action_index": index}
	case message.StartGame != nil:
		reply["start_game"] = map[string]any{}
	default:
		reply["end_game"] = map[string]any{}
	}
	return reply
}

func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 1<<20), 8<<20) // a request may be longer than the default 64 KiB
	out := bufio.NewWriter(os.Stdout)
	for lines.Scan() {
		var message request
		if err := json.Unmarshal(lines.Bytes(), &message); err != nil {
			os.Stderr.WriteString("not a request: " + err.Error() + "\n")
			os.Exit(1)
		}
		line, _ := json.Marshal(answer(message))
		out.Write(append(line, '\n'))
		out.Flush()
	}
}
