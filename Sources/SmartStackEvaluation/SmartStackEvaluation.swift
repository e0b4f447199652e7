import SmartStack
