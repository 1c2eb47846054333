package marked

type late struct{}

type kept struct{ late }

type other struct{ late }

type plain struct{}
