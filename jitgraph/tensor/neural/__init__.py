"""Neural-network ops (Theano's ``theano.tensor.nnet``): activations, softmax and cross-entropy,
batch normalization."""
