module example.com/mod/sibling

go 1.26
