package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// callbackSecretSetting is where the generated callback secret is kept.
const callbackSecretSetting = "callback_secret"

// openStore opens the configured database with migrations applied.
func openStore(ctx context.Context, e *env) (*storage.Store, Config, error) {
	cfg, err := LoadConfig(e.getenv)
	if err != nil {
		return nil, cfg, err
	}
	st, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, cfg, fmt.Errorf("open DATABASE_URL %s: %w", redactURL(cfg.DatabaseURL), err)
	}
	return st, cfg, nil
}

func runMigrate(ctx context.Context, e *env) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if err := fs.Parse(e.args); err != nil {
		return exitf(exitUsage, "")
	}
	st, cfg, err := openStore(ctx, e) // Open applies the migrations
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(e.stdout, "migrated %s\n", redactURL(cfg.DatabaseURL))
	return nil
}

func runToken(ctx context.Context, e *env) error {
	if len(e.args) == 0 {
		return exitf(exitUsage, "say what to do: bot token create --name NAME --scope ask[,answer,admin] | bot token list | bot token revoke NAME")
	}
	verb, args := e.args[0], e.args[1:]
	switch verb {
	case "create":
		fs := flag.NewFlagSet("token create", flag.ContinueOnError)
		fs.SetOutput(e.stderr)
		name := fs.String("name", "", "the token's name (unique)")
		scope := fs.String("scope", "ask", "comma-separated scopes: ask, answer, admin")
		ns := fs.String("namespace", "", "the namespace its inquiries live in (default: the name)")
		if err := fs.Parse(args); err != nil {
			return exitf(exitUsage, "")
		}
		if strings.TrimSpace(*name) == "" {
			return exitf(exitUsage, "--name is required: give the token a name such as nightly-deploy")
		}
		scopes, err := inquiry.ParseScopes(*scope)
		if err != nil {
			return exitf(exitUsage, "%s", inquiry.ErrorMessage(err))
		}
		// A namespace given explicitly binds the token to it: with the answer scope it then
		// answers that namespace only. Left out, it defaults to the name and binds nothing.
		bound := *ns != ""
		if !bound {
			*ns = *name
		}
		st, _, err := openStore(ctx, e)
		if err != nil {
			return err
		}
		defer st.Close()
		plain, t := inquiry.NewToken(*name, *ns, scopes, time.Now().UTC())
		t.NamespaceBound = bound
		if err := st.CreateToken(ctx, t); err != nil {
			if inquiry.ErrorCode(err) == inquiry.CodeIDConflict {
				return exitf(exitUsage, "a token named %q exists already: pick another name, or revoke it first", *name)
			}
			return err
		}
		limit := ""
		if bound && t.Has(inquiry.ScopeAnswer) && !t.IsAdmin() {
			limit = ", answers that namespace only"
		}
		fmt.Fprintf(e.stderr, "created token %q (namespace %s%s, scopes %s); it is shown once:\n", t.Name, t.Namespace, limit, joinScopes(t.Scopes))
		fmt.Fprintln(e.stdout, plain)
		return nil
	case "list":
		st, _, err := openStore(ctx, e)
		if err != nil {
			return err
		}
		defer st.Close()
		tokens, err := st.ListTokens(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "NAME\tNAMESPACE\tSCOPES\tCREATED\tREVOKED")
		for _, t := range tokens {
			revoked := "-"
			if t.RevokedAt != nil {
				revoked = t.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Namespace, joinScopes(t.Scopes), t.CreatedAt.Format(time.RFC3339), revoked)
		}
		w.Flush()
		secret := "(not generated yet: it is made on the first start of bot serve)"
		if s, err := st.Setting(ctx, callbackSecretSetting); err == nil {
			secret = s
		}
		if v := e.getenv("BOT_CALLBACK_SECRET"); v != "" {
			secret = "(from BOT_CALLBACK_SECRET)"
		}
		fmt.Fprintf(e.stdout, "\ncallback secret (verifies X-Inquiry-Signature): %s\n", secret)
		return nil
	case "revoke":
		if len(args) != 1 {
			return exitf(exitUsage, "name one token: bot token revoke NAME")
		}
		st, _, err := openStore(ctx, e)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := st.RevokeToken(ctx, args[0], time.Now().UTC()); err != nil {
			if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
				return exitf(exitUsage, "no token named %q: see bot token list", args[0])
			}
			return err
		}
		fmt.Fprintf(e.stdout, "revoked %s\n", args[0])
		return nil
	}
	return exitf(exitUsage, "unknown token command %q: use create, list or revoke", verb)
}

func joinScopes(scopes []inquiry.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}

// tokenFile is where the first-start admin token is kept for the CLI on the same machine.
func tokenFile(getenv func(string) string) (string, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("neither XDG_CONFIG_HOME nor HOME is set: set one so the token file has a place")
			}
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "inquiry-bot", "token"), nil
}

// writeTokenFile writes the token with mode 0600 in a 0700 folder.
func writeTokenFile(getenv func(string) string, plain string) (string, error) {
	path, err := tokenFile(getenv)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(plain+"\n"), 0o600)
}

// readToken finds the CLI's token: BOT_TOKEN, else the token file.
func readToken(getenv func(string) string) (string, error) {
	if t := strings.TrimSpace(getenv("BOT_TOKEN")); t != "" {
		return t, nil
	}
	path, err := tokenFile(getenv)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("no token: set BOT_TOKEN, or run bot serve once on this machine to write %s", path)
	}
	return strings.TrimSpace(string(b)), nil
}
