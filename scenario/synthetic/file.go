package synthetic

// file is a scenario file as the generator writes it: the subset of the
// scenario format it uses, with the format's field names.
type file struct {
	Config          fileConfig      `json:"config"`
	PriorityClasses []priorityClass `json:"priorityClasses"`
	Nodes           []node          `json:"nodes"`
	PodGroups       []podGroup      `json:"podGroups,omitempty"`
	Budgets         []budget        `json:"podDisruptionBudgets,omitempty"`
	Pods            []pod           `json:"pods"`
	Events          []event         `json:"events,omitempty"`
}

type fileConfig struct {
	TerminationGracePeriod string `json:"terminationGracePeriod"`
}

type priorityClass struct {
	Name          string `json:"name"`
	Value         int32  `json:"value"`
	GlobalDefault bool   `json:"globalDefault,omitempty"`
}

type node struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Allocatable map[string]string `json:"allocatable"`
	Count       int               `json:"count,omitempty"`
}

type podGroup struct {
	Name              string `json:"name"`
	MinCount          int    `json:"minCount"`
	TopologyKey       string `json:"topologyKey,omitempty"`
	PriorityClassName string `json:"priorityClassName"`
}

type budget struct {
	Name         string            `json:"name"`
	Selector     map[string]string `json:"selector"`
	MinAvailable string            `json:"minAvailable"`
}

type pod struct {
	Name              string            `json:"name"`
	Labels            map[string]string `json:"labels,omitempty"`
	Requests          map[string]string `json:"requests"`
	PriorityClassName string            `json:"priorityClassName"`
	PodGroup          string            `json:"podGroup,omitempty"`
	At                string            `json:"at"`
	Duration          string            `json:"duration,omitempty"`
	Count             int               `json:"count,omitempty"`
}

type event struct {
	At           string `json:"at"`
	AddNode      *node  `json:"addNode,omitempty"`
	RemoveNode   string `json:"removeNode,omitempty"`
	DrainNode    string `json:"drainNode,omitempty"`
	UncordonNode string `json:"uncordonNode,omitempty"`
}
