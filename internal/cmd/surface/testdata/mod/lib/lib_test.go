package lib

func TestOnly() {}
