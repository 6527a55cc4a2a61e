package model_test

import (
	"fmt"

	"epsim/model"
)

// Keep a slice's wire size up to date as endpoints come and go, then price one watch event.
func ExampleSliceSizer() {
	slice := &model.EndpointSlice{
		ObjectMeta: model.ObjectMeta{
			Name: "web-abcde", GenerateName: "web-", Namespace: "default",
			Labels: model.StringMapFrom(model.LabelServiceName, "web", model.LabelManagedBy, model.ControllerName),
		},
		AddressType: model.AddressTypeIPv4,
		Ports:       []model.EndpointPort{{Name: model.Ptr("http"), Protocol: model.Ptr(model.ProtocolTCP), Port: model.Ptr(int32(8080))}},
	}
	var sizer model.SliceSizer
	for _, ip := range []string{"10.1.0.1", "10.1.0.2", "10.1.0.3"} {
		ep := model.Endpoint{
			Addresses:  []string{ip},
			Conditions: model.EndpointConditions{Ready: model.ConditionTrue, Serving: model.ConditionTrue, Terminating: model.ConditionFalse},
			NodeName:   model.Ptr("ip-10-0-0-1.ec2.internal"),
			Zone:       model.Ptr("us-east-1a"),
		}
		slice.Endpoints = append(slice.Endpoints, ep)
		sizer.Add(&ep)
	}
	// The API server's entry for the controller that created it with these endpoints.
	slice.ManagedFields = []model.ManagedFieldsEntry{model.EndpointSliceManagedFields(slice, model.Timestamp(1704067200e9))}

	for _, enc := range []model.Encoding{model.Protobuf, model.JSON} {
		object := sizer.Size(slice, enc)
		fmt.Printf("%s: object %d B (from scratch %d B), MODIFIED event %d B, per endpoint %d B\n",
			enc, object, model.EndpointSliceSize(slice, enc),
			model.WatchEventSize(object, model.EventModified, enc),
			model.EndpointSize(&slice.Endpoints[0], enc))
	}
	// Output:
	// protobuf: object 665 B (from scratch 665 B), MODIFIED event 685 B, per endpoint 58 B
	// json: object 1153 B (from scratch 1153 B), MODIFIED event 1183 B, per endpoint 148 B
}
