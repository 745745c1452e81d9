package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeConfigurationTableListsWhatTheBotReads keeps the README's Configuration table and
// configVars in step: a variable the bot reads but the table omits is one a new user cannot
// find, and one the table lists but the bot ignores is a setting that silently does nothing.
func TestReadmeConfigurationTableListsWhatTheBotReads(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	start := strings.Index(readme, "\n## Configuration\n")
	end := strings.Index(readme, "\n### Limits\n")
	if start < 0 || end < start {
		t.Fatalf("the README has no \"## Configuration\" section followed by \"### Limits\"")
	}
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	var listed []string
	for _, line := range strings.Split(readme[start:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Only the first cell names variables; the others may mention some in passing.
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			listed = append(listed, m[1])
		}
	}
	if len(listed) == 0 {
		t.Fatal("found no variable in the README's Configuration table")
	}
	for _, v := range configVars {
		if !slices.Contains(listed, v) {
			t.Errorf("the bot reads %s but the README's Configuration table does not list it", v)
		}
	}
	for _, v := range listed {
		if !slices.Contains(configVars, v) {
			t.Errorf("the README's Configuration table lists %s but configVars (what the bot reads) does not", v)
		}
	}
}
