package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage"
)

// callbackSecretSetting is where the generated callback secret is kept.
const callbackSecretSetting = "callback_secret"

// linkSecretSetting is where the generated secret that signs answer links is kept; it is never
// shown (a link is minted through the API).
const linkSecretSetting = "link_secret"

// openStore opens the configured database with migrations applied.
func openStore(ctx context.Context, e *env) (*storage.Store, Config, error) {
	cfg, err := LoadConfig(e.getenv)
	if err != nil {
		return nil, cfg, err
	}
	st, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, cfg, fmt.Errorf("open DATABASE_URL %s: %w", storage.RedactURL(cfg.DatabaseURL), err)
	}
	return st, cfg, nil
}

const migrateHelp = `usage: bot migrate

Applies the database migrations to DATABASE_URL (bot serve applies them on start too).
`

func runMigrate(ctx context.Context, e *env) error {
	fs := commandFlags(e, "migrate", migrateHelp)
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	st, cfg, err := openStore(ctx, e) // Open applies the migrations
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(e.stdout, "migrated %s\n", storage.RedactURL(cfg.DatabaseURL))
	return nil
}

const tokenHelp = `usage: bot token create --name NAME [--scope ask[,answer,admin]] [--namespace NAMESPACE]
       bot token list
       bot token revoke NAME

Makes, lists and revokes API tokens. With BOT_URL set it does so on that server, through its API,
with an admin token (BOT_TOKEN or the token file). Without BOT_URL it works on the database of
DATABASE_URL (default sqlite:inquiry-bot.db) directly, as on the server's own machine.
`

const tokenCreateHelp = `usage: bot token create --name NAME [--scope ask[,answer,admin]] [--namespace NAMESPACE]

Makes a token and prints it as the last line of stdout; it is shown this once. In an agent
harness's tool shell (the markers bot answer reads) it makes no token with the answer or admin
scope: an agent must not mint itself a token that answers. An ask-only token it may make.

Flags:
`

const tokenListHelp = `usage: bot token list

Lists every token (never its secret), revoked ones too, and the callback secret.
`

const tokenRevokeHelp = `usage: bot token revoke NAME

Revokes the token named NAME: every request it makes from then on is refused.
`

// tokenPlace is where bot token acts: the server at BOT_URL through its API, or the database
// itself through the same service the API calls. Either way the rules are inquiry's.
type tokenPlace interface {
	CreateToken(ctx context.Context, spec inquiry.TokenSpec) (string, *inquiry.Token, error)
	// ListTokens lists the tokens, with the callback secret line's text.
	ListTokens(ctx context.Context) ([]*inquiry.Token, string, error)
	RevokeToken(ctx context.Context, name string) (*inquiry.Token, error)
	Close() error
}

// openTokenPlace picks the API when BOT_URL is set (an operator elsewhere must never get a
// token written to a stray ./inquiry-bot.db), else the database.
func openTokenPlace(ctx context.Context, e *env) (tokenPlace, error) {
	if strings.TrimSpace(e.getenv("BOT_URL")) != "" {
		c, err := newClient(e)
		if err != nil {
			return nil, err
		}
		return apiTokens{c}, nil
	}
	if strings.TrimSpace(e.getenv("DATABASE_URL")) == "" {
		// Not silently: a token made here counts only for a server on this very file.
		fmt.Fprintln(e.stderr, "bot token: neither BOT_URL nor DATABASE_URL is set: using the database sqlite:inquiry-bot.db in the current directory")
	}
	st, _, err := openStore(ctx, e)
	if err != nil {
		return nil, err
	}
	return &dbTokens{svc: inquiry.NewService(st, inquiry.NewRegistry()), st: st, getenv: e.getenv}, nil
}

// apiTokens manages the tokens of the server at BOT_URL.
type apiTokens struct{ c *client.Client }

func (a apiTokens) CreateToken(ctx context.Context, spec inquiry.TokenSpec) (string, *inquiry.Token, error) {
	return a.c.CreateToken(ctx, spec)
}

func (a apiTokens) ListTokens(ctx context.Context) ([]*inquiry.Token, string, error) {
	l, err := a.c.ListTokens(ctx)
	if err != nil {
		return nil, "", err
	}
	secret := l.CallbackSecret
	if secret == "" {
		secret = "(none on the server: set BOT_CALLBACK_SECRET there, or restart bot serve to generate one)"
	}
	return l.Tokens, secret, nil
}

func (a apiTokens) RevokeToken(ctx context.Context, name string) (*inquiry.Token, error) {
	return a.c.RevokeToken(ctx, name)
}

func (apiTokens) Close() error { return nil }

// dbTokens manages the tokens of the database as the operator who can open it: it holds every
// token already, so it acts as an admin (inquiry.Operator).
type dbTokens struct {
	svc    *inquiry.Service
	st     *storage.Store
	getenv func(string) string
}

func (d *dbTokens) as(ctx context.Context) context.Context {
	return inquiry.WithCaller(ctx, inquiry.Operator())
}

func (d *dbTokens) CreateToken(ctx context.Context, spec inquiry.TokenSpec) (string, *inquiry.Token, error) {
	return d.svc.CreateToken(d.as(ctx), spec)
}

func (d *dbTokens) ListTokens(ctx context.Context) ([]*inquiry.Token, string, error) {
	tokens, err := d.svc.ListTokens(d.as(ctx))
	if err != nil {
		return nil, "", err
	}
	secret := "(not generated yet: it is made on the first start of bot serve)"
	if s, err := d.st.Setting(ctx, callbackSecretSetting); err == nil {
		secret = s
	}
	if v := d.getenv("BOT_CALLBACK_SECRET"); v != "" {
		secret = "(from BOT_CALLBACK_SECRET)"
	}
	return tokens, secret, nil
}

func (d *dbTokens) RevokeToken(ctx context.Context, name string) (*inquiry.Token, error) {
	return d.svc.RevokeToken(d.as(ctx), name)
}

func (d *dbTokens) Close() error { return d.st.Close() }

// tokenFailed is failed for bot token: a gateway that cannot be reached says how to work on the
// database instead.
func tokenFailed(ctx context.Context, err error) error {
	var te *client.TransportError
	if errors.As(err, &te) {
		return exitf(exitUsage, "%s; or unset BOT_URL to manage the tokens of DATABASE_URL directly", err.Error())
	}
	return failed(ctx, err, false)
}

func runToken(ctx context.Context, e *env) error {
	if len(e.args) == 0 {
		return exitf(exitUsage, "say what to do: bot token create --name NAME --scope ask[,answer,admin] | bot token list | bot token revoke NAME")
	}
	verb, args := e.args[0], e.args[1:]
	var help string
	switch verb {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, tokenHelp)
		return nil
	case "create":
		help = tokenCreateHelp
	case "list":
		help = tokenListHelp
	case "revoke":
		help = tokenRevokeHelp
	default:
		return exitf(exitUsage, "unknown token command %q: use create, list or revoke (bot token --help)", verb)
	}
	fs := commandFlags(e, "token "+verb, help)
	var name, scope, ns *string
	if verb == "create" {
		name = fs.String("name", "", "the token's name (unique): letters, digits and . _ - @ : +")
		scope = fs.String("scope", "ask", "comma-separated scopes: ask, answer, admin")
		ns = fs.String("namespace", "", "the namespace its inquiries live in (default: the name)")
	}
	if done, err := parseCommand(fs, args, e.stdout); done {
		return err
	}
	switch {
	case verb == "create" && fs.NArg() > 0:
		return exitf(exitUsage, "unexpected argument %q: bot token create takes flags only, such as --name %s", fs.Arg(0), fs.Arg(0))
	case verb == "create" && strings.TrimSpace(*name) == "":
		return exitf(exitUsage, "--name is required: give the token a name such as nightly-deploy")
	case verb == "list" && fs.NArg() > 0:
		return exitf(exitUsage, "bot token list takes no arguments")
	case verb == "revoke" && fs.NArg() != 1:
		return exitf(exitUsage, "name one token: bot token revoke NAME")
	}
	var scopes []inquiry.Scope
	if verb == "create" {
		var err error
		if scopes, err = inquiry.ParseScopes(*scope); err != nil { // before anything is opened
			return exitf(exitUsage, "%s", inquiry.ErrorMessage(err))
		}
		if err := refuseAnsweringToken(e, scopes); err != nil {
			return err
		}
	}
	place, err := openTokenPlace(ctx, e)
	if err != nil {
		return err
	}
	defer place.Close()

	switch verb {
	case "create":
		plain, t, err := place.CreateToken(ctx, inquiry.TokenSpec{Name: *name, Scopes: scopes, Namespace: *ns})
		if err != nil {
			return tokenFailed(ctx, err)
		}
		limit := ""
		if t.NamespaceBound && t.Has(inquiry.ScopeAnswer) && !t.IsAdmin() {
			limit = ", answers that namespace only"
		}
		fmt.Fprintf(e.stderr, "created token %q (namespace %s%s, scopes %s); it is shown once:\n", t.Name, t.Namespace, limit, joinScopes(t.Scopes))
		fmt.Fprintln(e.stdout, plain)
	case "list":
		tokens, secret, err := place.ListTokens(ctx)
		if err != nil {
			return tokenFailed(ctx, err)
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
		fmt.Fprintf(e.stdout, "\ncallback secret (verifies X-Inquiry-Signature): %s\n", secret)
	case "revoke":
		t, err := place.RevokeToken(ctx, fs.Arg(0))
		if err != nil {
			return tokenFailed(ctx, err)
		}
		fmt.Fprintf(e.stdout, "revoked %s\n", t.Name)
	}
	return nil
}

// refuseAnsweringToken refuses, in an agent harness's tool shell, a token that may answer (the
// answer or the admin scope): an agent that refuses to answer as the person (bot answer) must
// not make itself a token that does. An ask-only token stays allowed: asking is the agent's part.
func refuseAnsweringToken(e *env, scopes []inquiry.Scope) error {
	m, ok := agentShell(e.getenv)
	if !ok || !slices.ContainsFunc(scopes, func(s inquiry.Scope) bool { return s == inquiry.ScopeAnswer || s == inquiry.ScopeAdmin }) {
		return nil
	}
	return exitf(exitUsage, "%s is set, the mark of an agent's tool shell (%s): bot token create makes no token with the answer or admin scope from there, "+
		"since an agent must not mint itself a token that answers — make it from the person's own terminal outside the agent; "+
		"nothing was made; a token that only asks (--scope ask) may be made here", m.name, m.harness)
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
