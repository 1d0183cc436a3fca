"""How tensor graphs print: ``pprint`` rules and Theano's names of elementwise ops."""
