package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/inquiry-bot/bot/storage"
	_ "github.com/lib/pq" // the admin connection and the bulk inserts
)

// pg is the PostgreSQL server the benchmark uses: it creates a database of its own for each
// measurement and drops them all on the way out.
type pg struct {
	adminURL string
	admin    *sql.DB

	mu      sync.Mutex
	created []string
}

func openPG(ctx context.Context, adminURL string) (*pg, error) {
	db, err := sql.Open("postgres", adminURL)
	if err != nil {
		return nil, fmt.Errorf("-pg: %w", err)
	}
	db.SetMaxOpenConns(2)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("PostgreSQL at %s cannot be reached (set -pg or TEST_DATABASE_URL): %w", storage.RedactURL(adminURL), err)
	}
	return &pg{adminURL: adminURL, admin: db}, nil
}

// newDatabase creates an empty database and returns its lib/pq URL.
func (p *pg) newDatabase(ctx context.Context, purpose string) (string, error) {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "botbench_" + purpose + "_" + hex.EncodeToString(b)
	if _, err := p.admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	p.mu.Lock()
	p.created = append(p.created, name)
	p.mu.Unlock()
	u, err := url.Parse(p.adminURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// dropAll drops every database the benchmark created (FORCE: leftover connections do not keep
// them).
func (p *pg) dropAll() {
	p.mu.Lock()
	names := p.created
	p.created = nil
	p.mu.Unlock()
	for _, name := range names {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := p.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "benchmark: drop database %s: %v\n", name, err)
		}
		cancel()
	}
	p.admin.Close()
}

// libpqURL is u without the parameters only lib/pq knows (pgbench is libpq and refuses them).
func libpqURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	for _, k := range []string{"binary_parameters", "disable_prepared_binary_result"} {
		q.Del(k)
	}
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// The row pgbench inserts is the row a create through the gateway inserts in the create load
// (createBody): the same columns, the same kinds and sizes of values, the same statement shape
// (INSERT … ON CONFLICT (namespace, run_id, id) DO NOTHING RETURNING key), prepared, into the
// bot's own inquiries table with all its indexes — the table `bot serve` created by migrating.
const pgbenchScript = `\set r random(1, 1000000000000000)
INSERT INTO inquiries (key, namespace, run_id, id, kind, question, context, options, multiple,
	allow_text, default_value, expires_at, policy, transport, status, answer, slack_channel,
	slack_thread_ts, slack_ts, slack_permalink, slack_answerers, callback_url, failure, created_at,
	resolved_at)
VALUES ('inq_' || lpad(:r::text, 16, '0') || :client_id, 'admin', '', 'pgbench-' || :client_id || '-' || :r,
	'choice', 'Merge PR #' || :r || ' into main now?', 'CI is green and the PR has two approvals.',
	'[{"value":"merge","label":"Merge"},{"value":"hold","label":"Hold"}]', false, false, '"hold"', NULL,
	'ask', 'inbox', 'pending', NULL, '', '', '', '', '[]', '', NULL, now(), NULL)
ON CONFLICT (namespace, run_id, id) DO NOTHING RETURNING key;
`

var (
	tpsRE  = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)
	txnsRE = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
)

// pgbenchResult is what a pgbench run measured.
type pgbenchResult struct {
	tps, txns float64
	line      string
	cpu       cpuUse
	pgbench   time.Duration // CPU time of the pgbench process
}

// runPgbench runs the insert script at the given concurrency for d.
func runPgbench(ctx context.Context, work, dbURL string, clients, threads int, d time.Duration) (pgbenchResult, error) {
	var res pgbenchResult
	script := filepath.Join(work, "insert_inquiry.sql")
	if err := os.WriteFile(script, []byte(pgbenchScript), 0o600); err != nil {
		return res, err
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads),
		"-T", strconv.Itoa(secs), "-f", script, libpqURL(dbURL)}
	cctx, cancel := context.WithTimeout(ctx, d+60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, pgbenchPath(), args...)
	res.line = "pgbench " + strings.Join(args[:len(args)-1], " ") + " DB_URL"
	before := snapCPU(0)
	out, err := cmd.CombinedOutput()
	res.cpu = before.until(snapCPU(0))
	if err != nil {
		return res, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.pgbench = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	res.cpu.others = max(0, res.cpu.others-res.pgbench)
	m := tpsRE.FindSubmatch(out)
	if m == nil {
		return res, fmt.Errorf("pgbench printed no tps:\n%s", out)
	}
	if t := txnsRE.FindSubmatch(out); t != nil {
		res.txns, _ = strconv.ParseFloat(string(t[1]), 64)
	}
	res.tps, err = strconv.ParseFloat(string(m[1]), 64)
	return res, err
}

func pgbenchPath() string {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	return "/usr/bin/pgbench"
}

// bulkPending inserts pending inquiries [from, to] straight into the bot's schema with
// generate_series, chunk by chunk: rows like the gateway's, created an hour ago, expiring at
// expiry plus one second per row.
func bulkPending(ctx context.Context, db *sql.DB, from, to int, namespace string, expiry time.Time) error {
	const chunk = 100_000
	for lo := from; lo <= to; lo += chunk {
		hi := min(to, lo+chunk-1)
		_, err := db.ExecContext(ctx, `INSERT INTO inquiries (key, namespace, run_id, id, kind, question,
				context, options, multiple, allow_text, default_value, expires_at, policy, transport, status,
				answer, slack_channel, slack_thread_ts, slack_ts, slack_permalink, slack_answerers,
				callback_url, failure, created_at, resolved_at)
			SELECT 'inq_' || $3 || '_' || g, $3, '', $3 || '-' || g, 'choice',
				'Merge PR #' || g || ' into main now?', 'CI is green and the PR has two approvals.',
				'[{"value":"merge","label":"Merge"},{"value":"hold","label":"Hold"}]', false, false,
				'"hold"', $4::timestamptz + g * interval '1 millisecond', 'ask', 'inbox', 'pending', NULL,
				'', '', '', '', '[]', '', NULL, $5::timestamptz, NULL
			FROM generate_series($1::int, $2::int) AS g`, lo, hi, namespace, expiry.UTC(), time.Now().UTC().Add(-time.Hour))
		if err != nil {
			return fmt.Errorf("bulk insert %d..%d: %w", lo, hi, err)
		}
	}
	return nil
}
