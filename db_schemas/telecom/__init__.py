"""A mobile carrier, modelled on τ²-bench's telecom domain: the company's records (customers, plans, lines,
bills) and the customers' phones, which only their owners can change."""
