package none

type plain struct{}
