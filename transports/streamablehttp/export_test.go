package streamablehttp

// Defaults the external tests size their inputs by.
const (
	DefaultHeadTimeout  = defaultHeadTimeout
	DefaultMaxBodyBytes = defaultMaxBodyBytes
)
