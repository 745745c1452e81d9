package gateway

import (
	"bytes"
	_ "embed"
	"strings"
)

// OpenAPI is the OpenAPI 3 document of the API, kept by hand beside the code it describes and
// checked against the server's answers by the tests.
//
//go:embed openapi.yaml
var OpenAPI []byte

// serversLine is the document's one server entry: relative, the host that served the document.
const serversLine = "servers:\n  - url: /\n"

// openAPIDocument is the document as served: with the public URL as its server when one is set,
// without a trailing slash (every path starts with one, and is appended to it as it stands).
func openAPIDocument(publicURL string) []byte {
	publicURL = strings.TrimRight(strings.TrimSpace(publicURL), "/")
	if publicURL == "" || strings.ContainsAny(publicURL, "\n\"") {
		return OpenAPI
	}
	return bytes.Replace(OpenAPI, []byte(serversLine), []byte("servers:\n  - url: \""+publicURL+"\"\n"), 1)
}
