// Command derive writes vectors.json: for each request body in requests.json, the id the Go side
// derives for it (inquiry.DerivedID("cli", ...), decoded as the server decodes an ask), so that
// the TypeScript client's derivation is checked against Go's own for content the server would
// refuse to store (control characters, lone surrogates) as well as for what it takes. Run it
// from the repository's root: go run ./clients/typescript/test/testdata/derive (npm run vectors);
// with -check it writes nothing and fails, saying so, when vectors.json is not what it would write
// (CI: a change to Go's derivation must reach the vectors the TypeScript tests read).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inquiry-bot/bot/inquiry"
)

func main() {
	check := flag.Bool("check", false, "fail when vectors.json is stale instead of writing it")
	flag.Parse()
	dir := filepath.Join("clients", "typescript", "test", "testdata", "derive")
	raw, err := os.ReadFile(filepath.Join(dir, "requests.json"))
	if err != nil {
		fail(err)
	}
	var reqs []json.RawMessage
	if err := json.Unmarshal(raw, &reqs); err != nil {
		fail(err)
	}
	type vector struct {
		Request json.RawMessage `json:"request"`
		ID      string          `json:"id"`
	}
	out := make([]vector, 0, len(reqs))
	for i, r := range reqs {
		var req inquiry.AskRequest
		if err := json.Unmarshal(r, &req); err != nil {
			fail(fmt.Errorf("request %d: %w", i, err))
		}
		out = append(out, vector{Request: r, ID: inquiry.DerivedID("cli", &req.Inquiry)})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fail(err)
	}
	b = append(b, '\n')
	path := filepath.Join(dir, "vectors.json")
	if *check {
		have, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(have, b) {
			fail(fmt.Errorf("%s is not what Go derives today: run npm run vectors in clients/typescript and commit it", path))
		}
		return
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "derive:", err)
	os.Exit(1)
}
