package gateway

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/inquiry-bot/bot/inquiry"
)

// unprocessable is the 422 code of a body type whose fields the service validates: text that is
// not UTF-8 in one of its string values is refused as that field's, not as a body that is not
// JSON, so that an asker (often a model) is told which field to mend.
var unprocessable = map[reflect.Type]inquiry.Code{
	reflect.TypeFor[AskBody]():    inquiry.CodeInvalidInquiry,
	reflect.TypeFor[AnswerBody](): inquiry.CodeInvalidAnswer,
	reflect.TypeFor[ResumeBody](): inquiry.CodeInvalidAnswer,
}

// invalidUTF8Field refuses a body, JSON but for bytes that are not UTF-8, whose first such bytes
// sit in a string value of a field the service validates (t in unprocessable): 422, naming the
// field and the byte. Nil when the bytes are elsewhere (a name, a body type of another kind):
// the body is then refused whole, as not UTF-8.
func invalidUTF8Field(body []byte, t reflect.Type) error {
	code, ok := unprocessable[t]
	if !ok {
		return nil
	}
	path, at := stringWithInvalidUTF8(body)
	if path == "" {
		return nil
	}
	return inquiry.FieldErrorf(code, path, "%s is not valid UTF-8 (byte %d of the body is no part of a character): send the text encoded as UTF-8", path, at)
}

// stringWithInvalidUTF8 returns the path (such as "proposal.content" or "options[1].label") of
// the first string value in body whose bytes are not UTF-8, and the offset of the first bad
// byte; "" when the first such bytes are in a name, or body does not read as JSON.
func stringWithInvalidUTF8(body []byte) (path string, at int) {
	type frame struct {
		object  bool
		key     string
		index   int
		wantKey bool
	}
	var stack []frame
	where := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			}
		}
		return b.String()
	}
	// done moves the innermost container past the value just read.
	done := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var from int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", 0
		}
		raw := body[from:dec.InputOffset()]
		start := int(from)
		from = dec.InputOffset()
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			bad := !utf8.Valid(raw)
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				if bad {
					return "", 0 // a name: the body, not a field, is at fault
				}
				stack[n-1].key, stack[n-1].wantKey = v, false
				continue
			}
			if bad {
				return where(), start + bytes.IndexByte(bytes.ToValidUTF8(raw, []byte{0xff}), 0xff)
			}
			done()
		default:
			done()
		}
	}
}
