// Package openapi holds the parts of an OpenAPI 3.1 document that roost
// writes, and the JSON Schemas of Go types as encoding/json writes them,
// so the public API's document and the admin API's are generated the same
// way from the types they answer with.
package openapi

// Document is an OpenAPI 3.1 document.
type Document struct {
	OpenAPI    string                           `json:"openapi"`
	Info       Info                             `json:"info"`
	Paths      map[string]map[string]*Operation `json:"paths"`
	Components Components                       `json:"components"`
}

// Info names the API.
type Info struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

// Components are the parts operations refer to.
type Components struct {
	Schemas         map[string]*Schema        `json:"schemas"`
	Responses       map[string]*Response      `json:"responses"`
	Headers         map[string]Header         `json:"headers,omitempty"`
	SecuritySchemes map[string]SecurityScheme `json:"securitySchemes"`
}

// SecurityScheme is how a request authenticates.
type SecurityScheme struct {
	Type   string `json:"type"`
	Scheme string `json:"scheme"`
}

// Operation is one method on one path.
type Operation struct {
	OperationID string                `json:"operationId"`
	Summary     string                `json:"summary"`
	Description string                `json:"description,omitempty"`
	Tags        []string              `json:"tags"`
	Security    []map[string][]string `json:"security"`
	Parameters  []Parameter           `json:"parameters,omitempty"`
	RequestBody *RequestBody          `json:"requestBody,omitempty"`
	Responses   map[string]*Response  `json:"responses"`
	// Extensions (x- fields, which OpenAPI leaves to the writer) for the
	// page made from the document: the endpoint the operation is one path
	// of (an endpoint may answer under several prefixes), the page's
	// section, its number in the hosted API's specification, and requests
	// to copy.
	Endpoint    string       `json:"x-roost-endpoint,omitempty"`
	Section     string       `json:"x-roost-section,omitempty"`
	Number      string       `json:"x-roost-number,omitempty"`
	CodeSamples []CodeSample `json:"x-codeSamples,omitempty"`
}

// CodeSample is a request to copy, as x-codeSamples lists them.
type CodeSample struct {
	Lang   string `json:"lang"`
	Label  string `json:"label"`
	Source string `json:"source"`
}

// Parameter is a path, query or header parameter.
type Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *Schema `json:"schema"`
}

// RequestBody is an operation's body.
type RequestBody struct {
	Required bool                 `json:"required"`
	Content  map[string]MediaType `json:"content"`
}

// MediaType is a body in one content type.
type MediaType struct {
	Schema *Schema `json:"schema"`
}

// Response is one status's answer, or a $ref to a component.
type Response struct {
	Ref         string               `json:"$ref,omitempty"`
	Description string               `json:"description,omitempty"`
	Headers     map[string]Header    `json:"headers,omitempty"`
	Content     map[string]MediaType `json:"content,omitempty"`
}

// Header is a response header, or a $ref to a component.
type Header struct {
	Ref         string  `json:"$ref,omitempty"`
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

// JSON is a body of schema s in application/json.
func JSON(s *Schema) map[string]MediaType {
	return map[string]MediaType{"application/json": {Schema: s}}
}
