package main

// bot runs: the runs of the token's namespace, and what each waits on.

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

const runsHelp = `usage: bot runs [--status STATUS] [--json]

Lists runs, most recently updated first, with their status, the age of their heartbeat and,
for a waiting run, the question it waits on.

Flags:
`

func runRuns(ctx context.Context, e *env) error {
	fs := commandFlags(e, "runs", runsHelp)
	status := fs.String("status", "", "only runs with this status: running, waiting, completed, failed or abandoned")
	namespace := fs.String("namespace", "", "only runs of this namespace (admin tokens)")
	limit := fs.Int("limit", 100, "at most this many runs")
	asJSON := fs.Bool("json", false, "print the runs as JSON")
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(exitUsage, "bot runs takes no arguments")
	}
	st := inquiry.RunStatus(strings.TrimSpace(*status))
	if err := st.CheckFilter(); err != nil {
		return exitf(exitUsage, "--%s", inquiry.ErrorMessage(err))
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	runs, err := c.ListRuns(ctx, client.RunListOptions{Status: st, Namespace: *namespace, Limit: *limit})
	if err != nil {
		return failed(ctx, err, false)
	}
	if *asJSON {
		if runs == nil {
			runs = []*client.Run{}
		}
		return writeJSON(e.stdout, struct {
			Runs []*client.Run `json:"runs"`
		}{runs})
	}
	if len(runs) == 0 {
		fmt.Fprintln(e.stdout, "No runs.")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tNAMESPACE\tSTATUS\tHEARTBEAT\tANSWERS\tWAITING ON")
	cut := false
	for _, r := range runs {
		waiting := "-"
		if r.WaitingOn != nil {
			q := inquiry.OneLine(inquiry.Printed(r.WaitingOn.Question), 100)
			cut = cut || q != inquiry.Printed(r.WaitingOn.Question)
			waiting = fmt.Sprintf("%s %q", r.WaitingOn.Key, q)
		}
		hb := "-"
		if !r.HeartbeatAt.IsZero() {
			hb = ago(now.Sub(r.HeartbeatAt))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, r.Namespace, r.Status, hb, len(r.Answers), waiting)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if cut {
		// A list row shortens; the question itself is never answered from here.
		fmt.Fprintln(e.stdout, "A question ending in … is cut here: bot questions shows it whole.")
	}
	return nil
}
