package main

// bot extend: give a pending question more time, as its asker allows.

import (
	"context"
	"fmt"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

const extendHelp = `usage: bot extend <key | number> [DURATION] [--json]

Gives a pending question more time: its expiry moves back by DURATION (a Go duration such as
1h; default: what the asker allows at a time, its extend.by), and its reminders move with it.
Only a question whose asker allowed it (bot ask --extend-by, --extend-max) can be extended, by at
most --extend-by at a time and --extend-max in all. The token must be one that may answer it.

Flags:
`

func runExtend(ctx context.Context, e *env) error {
	fs := commandFlags(e, "extend", extendHelp)
	asJSON := fs.Bool("json", false, "print the extended inquiry as JSON")
	pos, err := parseInterspersed(fs, e.args, e.stdout)
	if err == errHelpShown {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return exitf(exitUsage, "say which question, and by how much if not by what its asker allows: bot extend <key | number> [1h]")
	}
	var by time.Duration
	if len(pos) == 2 {
		d, err := inquiry.ParseDuration(pos[1])
		if err != nil || d <= 0 {
			return exitf(exitUsage, "%q is not a positive duration: write it like 30m or 1h", pos[1])
		}
		by = d.D()
	}
	c, rec, err := findQuestion(ctx, e, pos[0])
	if err != nil {
		return err
	}
	out, err := c.Extend(ctx, rec.Key, by)
	if err != nil {
		return failed(ctx, err, false)
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	fmt.Fprintln(e.stdout, inquiry.ExtendedText(out, inquiry.Duration(by)))
	return nil
}
