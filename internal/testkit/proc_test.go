package testkit

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func ExampleTail() {
	fmt.Println(Tail("one\ntwo\nthree\n", 2))
	// Output:
	// two
	// three
}

// A first start: the admin token on the line after its announcement, then the address.
func ExampleStartup() {
	var st Startup
	for _, line := range strings.Split("First start: created the admin token. It is shown once:\n"+
		"  bot_admin_s3cret\nlistening on http://127.0.0.1:43210", "\n") {
		if st.Line(line) {
			fmt.Println(st.URL, st.Admin)
		}
	}
	// Output: http://127.0.0.1:43210 bot_admin_s3cret
}

func TestWaitListening(t *testing.T) {
	var out SyncBuffer
	st, err := WaitListening(strings.NewReader("listening on http://127.0.0.1:1\nlater\n"), nil, &out, 5*time.Second)
	if err != nil || st.URL != "http://127.0.0.1:1" || st.Admin != "" {
		t.Fatalf("got %+v, %v", st, err)
	}
	Eventually(t, 5*time.Second, "what follows the listening line copied too", func() bool {
		return strings.Contains(out.String(), "later")
	})
	exited := make(chan struct{})
	close(exited)
	if _, err := WaitListening(strings.NewReader("starting\n"), exited, &out, 5*time.Second); !errors.Is(err, errEnded) {
		t.Errorf("stdout ended before the listening line: got %v, want errEnded", err)
	}
	r, w := io.Pipe()
	defer w.Close()
	if _, err := WaitListening(r, nil, &out, 10*time.Millisecond); err == nil || errors.Is(err, errEnded) {
		t.Errorf("nothing said within the time: got %v, want a timeout", err)
	}
}
