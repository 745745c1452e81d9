package channeltest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyTestsImportIt: the suite (which imports testing) is linked into no binary: no
// package of the module imports it outside its test files.
func TestOnlyTestsImportIt(t *testing.T) {
	const self = "github.com/inquiry-bot/bot/internal/channeltest"
	out, err := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/inquiry-bot/bot/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list named %d packages; the module has more:\n%s", len(lines), out)
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if imp == self {
				t.Errorf("%s imports %s outside its tests: the suite is for tests only", fields[0], self)
			}
		}
	}
}
