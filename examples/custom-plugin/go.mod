module github.com/gangsim/gangsim/examples/custom-plugin

go 1.26

require (
	github.com/gangsim/gangsim v0.0.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/google/btree v1.1.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/gangsim/gangsim => ../..
