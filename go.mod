module github.com/gangsim/gangsim

go 1.26

require (
	github.com/google/btree v1.1.3
	github.com/stretchr/testify v1.12.1
)

require (
	go.yaml.in/yaml/v3 v3.0.5
	gonum.org/v1/gonum v0.17.0
)
