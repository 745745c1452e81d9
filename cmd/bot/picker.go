package main

// The terminal side of bot questions -i: raw mode, the alternate screen, reading keys, polling
// the listing, and sending what the person confirmed through the same client call as bot answer.
// The rules stay in picker_model.go (the keys) and in the server (the answers).

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/inquiry-bot/bot/client"
	"github.com/inquiry-bot/bot/inquiry"
)

// pickerPoll is how often the picker reads the listing again, so that questions show up and
// leave while it is open. One listing is one request: cheap next to a person reading.
const pickerPoll = 1500 * time.Millisecond

// terminals returns stdin and stdout as terminals, or false when either is not one (a pipe, a
// file, a test's buffer): the picker needs both, and everything else gets the plain list.
func terminals(e *env) (in, out *os.File, ok bool) {
	in, okIn := e.stdin.(*os.File)
	out, okOut := e.stdout.(*os.File)
	if !okIn || !okOut || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return nil, nil, false
	}
	return in, out, true
}

// listing is the outcome of one read of the pending questions, and the number of answers sent
// when it started.
type listing struct {
	qs   []*inquiry.Record
	err  error
	sent int
}

// runPicker runs the picker on the terminal in/out until q, Ctrl-C or the end of ctx, with the
// selected question's context shown from the start when withContext. The terminal is restored
// however it ends; the answers recorded are printed after.
func runPicker(ctx context.Context, c *client.Client, in, out *os.File, withContext bool) error {
	fd := int(in.Fd())
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return exitf(exitUsage, "cannot set up the terminal (%v): run bot questions without -i", err)
	}
	// The alternate screen keeps the shell's scrollback as it was; the cursor is hidden while
	// the picker draws.
	io.WriteString(out, "\x1b[?1049h\x1b[?25l")
	p := &picker{context: withContext}
	defer func() {
		io.WriteString(out, "\x1b[?25h\x1b[?1049l")
		term.Restore(fd, saved)
		for _, block := range p.done {
			io.WriteString(out, block) // printed and quoted already, as bot answer echoes
		}
	}()

	keys := make(chan []byte)
	go func() {
		// It ends with the process: a read of a terminal cannot be interrupted portably.
		buf := make([]byte, 256)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				b := append([]byte(nil), buf[:n]...)
				select {
				case keys <- b:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				close(keys)
				return
			}
		}
	}()

	lists := make(chan listing, 1)
	polling, sent, again := false, 0, false
	poll := func() {
		if polling {
			again = true // one listing at a time: a slow server is not asked twice over
			return
		}
		polling = true
		go func(sent int) {
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			qs, err := pendingQuestions(lctx, c)
			lists <- listing{qs, err, sent}
		}(sent)
	}
	poll()
	tick := time.NewTicker(pickerPoll)
	defer tick.Stop()

	draw := func() {
		w, h, err := term.GetSize(int(out.Fd()))
		if err != nil {
			w, h = 80, 24
		}
		lines := p.view(time.Now(), w, h)
		var b strings.Builder
		b.WriteString("\x1b[H")
		for i, l := range lines {
			if i == len(lines)-1 {
				b.WriteString("\x1b[7m" + l + "\x1b[0m\x1b[K") // the bottom line stands out
			} else {
				b.WriteString(l + "\x1b[K\r\n")
			}
		}
		io.WriteString(out, b.String())
	}
	draw()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			poll()
			continue // drawn when the listing arrives
		case l := <-lists:
			polling = false
			if l.sent != sent {
				// Read before the last answer was sent: it may still list the question answered.
				poll()
				continue
			}
			if again {
				again = false
				poll()
			}
			if l.err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if p.mode == modeBrowse {
					p.status = "Cannot read the questions: " + errMessage(l.err)
				}
			} else {
				p.setQuestions(l.qs)
			}
		case b, ok := <-keys:
			if !ok {
				return nil
			}
			for _, k := range decodeKeys(b) {
				send, quit := p.press(k)
				if quit {
					return nil
				}
				if send != nil {
					draw() // "Sending…"
					sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					rec, err := c.Answer(sctx, send.key, send.reply)
					cancel()
					if errors.Is(err, context.Canceled) && ctx.Err() != nil {
						return nil
					}
					p.sent(rec, err)
					sent++
					poll()
				}
			}
		}
		draw()
	}
}
