package main

// bot log: the record of one inquiry, oldest first.

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

const logHelp = `usage: bot log KEY [--json]

Prints the record of the inquiry with KEY (it starts with inq_), oldest first: one line per
event with its time, its type, who did it and what it says — created, posted, voted, answered,
expired, cancelled, failed, callback_delivered, callback_failed. The token must be one that may
read the inquiry.

Flags:
`

func runLog(ctx context.Context, e *env) error {
	fs := commandFlags(e, "log", logHelp)
	asJSON := fs.Bool("json", false, "print the events as the API gives them")
	pos, err := parseInterspersed(fs, e.args, e.stdout) // bot log KEY --json
	if err == errHelpShown {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return exitf(exitUsage, "bot log takes one inquiry key (inq_…): bot log KEY")
	}
	c, err := newClient(e)
	if err != nil {
		return err
	}
	evs, err := c.Events(ctx, pos[0])
	if err != nil {
		return failed(ctx, err, false)
	}
	if evs == nil {
		evs = []inquiry.Event{}
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			Events []inquiry.Event `json:"events"`
		}{evs})
	}
	if len(evs) == 0 {
		fmt.Fprintln(e.stdout, "No events.")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, ev := range evs {
		by := ev.By
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ev.At.UTC().Format(time.DateTime+"Z"), ev.Type, inquiry.OneLine(inquiry.Printed(by), 40), inquiry.Printed(ev.Summary()))
	}
	return tw.Flush()
}
