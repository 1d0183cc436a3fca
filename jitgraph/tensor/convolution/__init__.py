"""Convolution, correlation, pooling, neighbourhoods and upsampling of images
(``theano.tensor.nnet.abstract_conv``, ``theano.tensor.signal``)."""
