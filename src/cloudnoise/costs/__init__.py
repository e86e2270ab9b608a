"""cloudnoise.costs: the cost stage (runtime x nodes x price, the cost of noise).

The public function is `cloudnoise.cost` (defined in `api.cost`); this package
holds the stage's modules. It was called `cloudnoise.cost` before the public
API became plain functions.
"""
