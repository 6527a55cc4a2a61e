module epsim

go 1.26
