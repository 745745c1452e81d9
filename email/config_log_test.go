package email_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/email"
)

// TestConfigNeverShowsThePassword: however the config reaches a log line or an error — slog's
// JSON or text, %v, %+v, %#v — the password is not in it.
func TestConfigNeverShowsThePassword(t *testing.T) {
	cfg, err := email.ParseConfig("smtps://bot:s3cr3t-pw@mail.example.com", "bot@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	slog.New(slog.NewJSONHandler(&out, nil)).Info("mail", "cfg", cfg, "ptr", &cfg)
	slog.New(slog.NewTextHandler(&out, nil)).Info("mail", "cfg", cfg, "ptr", &cfg)
	fmt.Fprintf(&out, "%v %+v %#v %s %v", cfg, cfg, cfg, &cfg, &cfg)
	if strings.Contains(out.String(), "s3cr3t-pw") {
		t.Fatalf("the password shows:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "mail.example.com:465") {
		t.Fatalf("the config says nothing useful:\n%s", out.String())
	}
}
