"""Operations: structured logs (`logs`), Prometheus metrics (`metrics`), `gpu-advisor doctor` (`doctor`)."""
