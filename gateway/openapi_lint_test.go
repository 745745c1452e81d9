package gateway_test

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPINullableHasType holds the document to OpenAPI 3.0.3's reading of nullable: it adds
// null to the type of its own schema only, so a nullable schema without a type allows no null at
// all to a strict reader (Redocly's nullable-type-sibling error; Ajv refuses to compile it) while
// the server sends null there. A null beside a reference is a oneOf with #/components/schemas/JSONNull.
// kin-openapi reads nullable loosely and would not notice; .ci/openapi-lint.sh runs Redocly and
// Ajv themselves on the served document.
func TestOpenAPINullableHasType(t *testing.T) {
	var bad []string
	// A reference is not followed: every component schema is walked under its own name.
	var walk func(where string, ref *openapi3.SchemaRef)
	walk = func(where string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || ref.Ref != "" {
			return
		}
		s := ref.Value
		if s.Nullable && (s.Type == nil || len(*s.Type) == 0) {
			bad = append(bad, where)
		}
		for name, p := range s.Properties {
			walk(where+"/properties/"+name, p)
		}
		walk(where+"/items", s.Items)
		walk(where+"/additionalProperties", s.AdditionalProperties.Schema)
		walk(where+"/not", s.Not)
		for kw, group := range map[string][]*openapi3.SchemaRef{"oneOf": s.OneOf, "anyOf": s.AnyOf, "allOf": s.AllOf} {
			for i, sub := range group {
				walk(where+"/"+kw+"/"+strconv.Itoa(i), sub)
			}
		}
	}
	for name, ref := range specDoc.Components.Schemas {
		walk("#/components/schemas/"+name, &openapi3.SchemaRef{Value: ref.Value})
	}
	for name, p := range specDoc.Components.Parameters {
		walk("#/components/parameters/"+name, p.Value.Schema)
	}
	for path, item := range specDoc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				walk(path+" "+method+" parameter "+p.Value.Name, p.Value.Schema)
			}
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("nullable without a type beside it (give it its type, or make it oneOf [{$ref: ...}, {$ref: \"#/components/schemas/JSONNull\"}]):\n%s", strings.Join(bad, "\n"))
	}
}
