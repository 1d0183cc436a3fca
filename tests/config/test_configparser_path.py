"""``theano.configparser`` as PyMC3 3.x uses it: ``change_flags`` imported from it (also as
``theano.configparser.change_flags`` after a plain ``import theano``) and ``_config_var_list``,
through which PyMC3's ``set_theano_conf`` saves and restores flags with the descriptor calls
``__get__(True, None)`` / ``__set__(None, value)``. Printed results equal Theano 1.0.5's."""

import pytest

import jitgraph as theano
from jitgraph.configparser import change_flags


def set_theano_conf(values):  # PyMC3 3.8's theanof.set_theano_conf, unchanged in substance
    variables = {}
    unknown = set(values)
    for variable in theano.configparser._config_var_list:
        if variable.fullname in values:
            variables[variable.fullname] = variable
            unknown.remove(variable.fullname)
    if unknown:
        raise ValueError("Unknown theano config settings: %s" % unknown)
    old = {}
    for name, variable in variables.items():
        old_value = variable.__get__(True, None)
        try:
            variable.__set__(None, values[name])
        except Exception:
            for key, value in old.items():
                variables[key].__set__(None, value)
            raise
        old[name] = old_value
    return old


def test_pymc3_saves_and_restores_flags_through_the_var_list():
    before = (theano.config.compute_test_value, theano.config.floatX)
    old = set_theano_conf({"compute_test_value": "raise", "floatX": "float32"})
    try:
        assert old == {"compute_test_value": before[0], "floatX": before[1]}
        assert (theano.config.compute_test_value, theano.config.floatX) == ("raise", "float32")
    finally:
        restored = set_theano_conf(old)
    assert restored == {"compute_test_value": "raise", "floatX": "float32"}
    assert (theano.config.compute_test_value, theano.config.floatX) == before
    with pytest.raises(ValueError, match="Unknown theano config settings"):
        set_theano_conf({"not_a_flag": 1})
    with pytest.raises(ValueError):  # a value the flag refuses
        set_theano_conf({"compute_test_value": "bogus"})
    assert theano.config.compute_test_value == before[0]


def test_change_flags_from_the_old_module():

    @theano.configparser.change_flags(compute_test_value="raise")
    def inside():
        return theano.config.compute_test_value

    before = theano.config.compute_test_value
    assert inside() == "raise" and theano.config.compute_test_value == before
    with change_flags(compute_test_value="warn"):
        assert theano.config.compute_test_value == "warn"
    assert theano.config.compute_test_value == before
    assert theano.configparser.config is theano.config
    with pytest.raises(AttributeError, match="no attribute 'AddConfigVar'"):
        theano.configparser.AddConfigVar  # noqa: B018 - declared with config.add instead
