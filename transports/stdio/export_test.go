package stdio

// DefaultMaxLineBytes is the default line limit, for the external tests.
const DefaultMaxLineBytes = defaultMaxLineBytes
