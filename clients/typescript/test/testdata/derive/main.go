// Command derive writes vectors.json: for each request body in requests.json, the id the Go side
// derives for it (inquiry.DerivedID("cli", ...), decoded as the server decodes an ask), so that
// the TypeScript client's derivation is checked against Go's own for content the server would
// refuse to store (control characters, lone surrogates) as well as for what it takes. Run it
// from the repository's root: go run ./clients/typescript/test/testdata/derive (npm run vectors).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inquiry-bot/bot/inquiry"
)

func main() {
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
	if err := os.WriteFile(filepath.Join(dir, "vectors.json"), append(b, '\n'), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "derive:", err)
	os.Exit(1)
}
