print("smartstack-bench")
