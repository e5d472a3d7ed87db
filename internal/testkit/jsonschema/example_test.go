package jsonschema_test

import (
	"fmt"

	"github.com/simjoin/simjoin/internal/testkit/jsonschema"
)

func Example() {
	s, err := jsonschema.Compile([]byte(`{
		"type": "object",
		"required": ["records"],
		"additionalProperties": false,
		"properties": {"records": {"type": "integer", "minimum": 0}, "join_s": {"type": "number"}}
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Validate([]byte(`{"records": 2000, "join_s": 0.024}`)))
	fmt.Println(s.Validate([]byte(`{"Records": 2000, "JoinTime": 24000000}`)))
	// Output:
	// <nil>
	// jsonschema: /: lacks the required "records"; /JoinTime: not allowed; /Records: not allowed
}
