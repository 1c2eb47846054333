// Package limits holds what the transports' limit options share: in a
// Limits struct a zero field means "keep the default", so an option
// merges only the fields it sets.
package limits

// Merge sets *dst to v unless v is the zero value, which leaves *dst,
// the default or an earlier option's value, as it is.
func Merge[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}
