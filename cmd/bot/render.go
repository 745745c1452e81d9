package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// renderFile is what `bot render` reads: an inquiry as it is asked (the POST /v1/inquiries body,
// whose extra fields are ignored here) or as the API returns it (with key, status and answer).
type renderFile struct {
	inquiry.Record
	ExpiresIn string          `json:"expires_in"`
	Wait      json.RawMessage `json:"wait"`
}

const renderHelp = `usage: bot render FILE   (an inquiry as JSON; - reads standard input)
Prints the Block Kit JSON of the message (and its modal), to paste into Slack's Block Kit Builder.
`

func runRender(_ context.Context, e *env) error {
	fs := commandFlags(e, "render", renderHelp)
	if done, err := parseCommand(fs, e.args, e.stdout); done {
		return err
	}
	if fs.NArg() != 1 {
		return exitf(exitUsage, "name one file: bot render FILE, or bot render - to read standard input")
	}
	var data []byte
	var err error
	if name := fs.Arg(0); name == "-" {
		data, err = io.ReadAll(e.stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return exitf(exitUsage, "read %s: %v", fs.Arg(0), err)
	}
	var f renderFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return exitf(exitUsage, "%s is not an inquiry as JSON: %v", fs.Arg(0), err)
	}
	now := time.Now().UTC()
	rec := f.Record
	if rec.ExpiresAt == nil {
		at, err := inquiry.ExpiryFrom(nil, f.ExpiresIn, now)
		if err != nil {
			return exitf(exitUsage, "%s", inquiry.ErrorMessage(err))
		}
		rec.ExpiresAt = at
	}
	if rec.Key == "" {
		rec.Key = "inq_preview"
	}
	if rec.Status == "" {
		rec.Status = inquiry.StatusPending
	}
	if err := inquiry.Validate(&rec.Inquiry, now); err != nil {
		return exitf(exitUsage, "%s", inquiry.ErrorMessage(err))
	}
	out, err := blockkit.Render(&rec, now)
	if err != nil {
		return exitf(exitUsage, "render: %v", err)
	}
	_, err = e.stdout.Write(append(out, '\n'))
	return err
}
