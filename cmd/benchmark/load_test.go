package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The load's hand-built body is the body createBody encodes.
func TestLoadBody(t *testing.T) {
	var fast, slow map[string]any
	if err := json.Unmarshal(loadBody("c0", 42), &fast); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(createBody("c0-42", "inbox", ""), &slow); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("loadBody %v\ncreateBody %v", fast, slow)
	}
}
