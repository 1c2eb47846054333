package marked

// A test file is not read: this type is not marked.
type fromTest struct{ late }
