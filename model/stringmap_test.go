package model

import "fmt"

func ExampleStringMap() {
	labels := StringMapFrom(LabelServiceName, "web", LabelManagedBy, ControllerName)
	shared := labels
	labels.Set("tier", "front") // a new key: a new array, shared is unchanged
	fmt.Println(len(shared), len(labels))
	fmt.Println(labels.Get("tier"), labels.Has(LabelHeadless))
	for _, l := range labels { // in key order
		fmt.Println(l.Key)
	}
	// Output:
	// 2 3
	// front false
	// endpointslice.kubernetes.io/managed-by
	// kubernetes.io/service-name
	// tier
}
